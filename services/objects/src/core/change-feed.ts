/** Longest delay a Node timer accepts; later boundaries are re-checked when it fires. */
const MAX_DELAY = 2_147_483_647

export interface Change {
  store_id: string
  generation: number
}

export interface ChangeFeedDeps {
  storeId: string
  now: () => number
  /** the next instant after `now` at which some object enters or leaves its publication window */
  nextBoundary: (now: number) => Promise<number | null>
  onError?: (err: unknown) => void
}

/**
 * The generation readers cache against. It rises after every committed write and when a
 * publication-window boundary passes (a timer re-armed after each write), so a cached public read
 * never outlives the data or the clock.
 */
export class ChangeFeed {
  private generation = 0
  private readonly listeners = new Set<(change: Change) => void>()
  private readonly closers = new Set<() => void>()
  private timer: NodeJS.Timeout | null = null
  private closed = false

  constructor (private readonly deps: ChangeFeedDeps) {}

  current (): Change {
    return { store_id: this.deps.storeId, generation: this.generation }
  }

  /** `onClose` runs when the feed closes (streams end so a shutdown can drain). */
  subscribe (listener: (change: Change) => void, onClose?: () => void): () => void {
    this.listeners.add(listener)
    if (onClose) this.closers.add(onClose)
    return () => {
      this.listeners.delete(listener)
      if (onClose) this.closers.delete(onClose)
    }
  }

  /** Called after each commit. */
  bump (): void {
    if (this.closed) return
    this.generation++
    const change = this.current()
    for (const listener of this.listeners) listener(change)
    void this.arm()
  }

  /** Schedules a bump at the next window boundary. */
  async arm (): Promise<void> {
    if (this.closed) return
    let next: number | null
    try {
      next = await this.deps.nextBoundary(this.deps.now())
    } catch (err) {
      this.deps.onError?.(err)
      return
    }
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (next === null || this.closed) return
    const delay = Math.max(0, next - this.deps.now())
    this.timer = setTimeout(() => (delay > MAX_DELAY ? void this.arm() : this.bump()), Math.min(delay, MAX_DELAY))
    this.timer.unref()
  }

  close (): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.listeners.clear()
    const closers = [...this.closers]
    this.closers.clear()
    for (const close of closers) close()
  }
}
