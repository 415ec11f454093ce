import type { ClientGone } from '@content/platform'

/** A client that goes when `leave` is called, as a request's does when its connection closes. */
export function leavingClient (): ClientGone & { leave (): void } {
  const listeners = new Set<() => void>()
  let gone = false
  return {
    get gone () { return gone },
    onGone (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    leave () {
      gone = true
      for (const l of [...listeners]) { listeners.delete(l); l() }
    },
  }
}
