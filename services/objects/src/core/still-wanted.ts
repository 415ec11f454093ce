import { DomainError } from '@content/platform'

/**
 * Whether the caller still waits for a read: checked between a read's stages (the page, each level of
 * include, the answer's serialization), so that a read whose caller gave up (its deadline passed, or it
 * cancelled the call) stops there instead of keeping the service busy for nobody. Throws when not.
 */
export type StillWanted = () => void

/** What a read's caller is: its deadline (epoch ms; Infinity: none) and whether it cancelled. */
export interface CallState { readonly deadlineMs: number, readonly cancelled: boolean }

/** The check of a call's state; `state` is read at each check, since a cancellation comes at any time. */
export function stillWantedBy (state: () => CallState, now: () => number = Date.now): StillWanted {
  return () => {
    const { deadlineMs, cancelled } = state()
    if (cancelled) throw new DomainError('REQUEST_CANCELLED', 'the call was cancelled: its read stopped')
    if (now() >= deadlineMs) throw new DomainError('BACKEND_TIMEOUT', 'the call\'s deadline passed: its read stopped')
  }
}

/** Runs the check of deps that carry one (a read outside a call carries none). */
export function checkWanted (deps: { stillWanted?: StillWanted | undefined }): void {
  deps.stillWanted?.()
}
