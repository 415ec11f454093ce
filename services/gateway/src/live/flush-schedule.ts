/** How long a least delay seen stays the floor (LiveFlushSchedule): between one and two of these. */
const FLOOR_SPAN_MS = 10_000

/**
 * When the live hub writes what its streams hold (LIVE_FLUSH_MS, the window): never twice within a
 * window, so a stream costs at most one write per window whatever the feed's pace; and otherwise as soon
 * as the oldest waiting event has been a window past its commit, not a window past reaching this gateway.
 * Counted from arrival, a window came on top of the feed's own delay, which on a busy gateway (its event
 * loop behind the reads) was tens of milliseconds at the tail.
 *
 * The commit time is the objects service's clock. Its offset from this one, plus the feed's least delay,
 * is taken as the least delay from commit to arrival seen lately (`floor`), so that a clock ahead or
 * behind neither holds events longer nor sends them sooner than the window says.
 */
export class LiveFlushSchedule {
  /** when the armed flush is due (this gateway's clock); Infinity: none is */
  private due = Number.POSITIVE_INFINITY
  private last = Number.NEGATIVE_INFINITY
  private floorNow = Number.POSITIVE_INFINITY
  private floorBefore = Number.POSITIVE_INFINITY
  private floorSince = Number.NEGATIVE_INFINITY

  constructor (private readonly windowMs: number, private readonly floorSpanMs = FLOOR_SPAN_MS) {}

  /**
   * A message reached the hub at `now`, its oldest event committed at `committedAt` (ms since the epoch,
   * the objects service's clock; 0 or less: not known). Answers in how many ms the flush should run, or
   * null when the one already armed is as soon.
   */
  arrived (committedAt: number, now: number): number | null {
    let late = 0
    if (committedAt > 0) {
      const delay = now - committedAt
      this.noteDelay(delay, now)
      late = Math.max(0, delay - Math.min(this.floorNow, this.floorBefore))
    }
    const due = Math.max(this.last + this.windowMs, now + Math.max(0, this.windowMs - late))
    if (due >= this.due) return null
    this.due = due
    return due - now
  }

  /** The flush ran at `now`. */
  flushed (now: number): void {
    this.last = now
    this.due = Number.POSITIVE_INFINITY
  }

  /** Nothing is armed any more (a shutdown). */
  cancelled (): void {
    this.due = Number.POSITIVE_INFINITY
  }

  private noteDelay (delay: number, now: number): void {
    if (now - this.floorSince >= this.floorSpanMs) {
      this.floorBefore = now - this.floorSince < 2 * this.floorSpanMs ? this.floorNow : Number.POSITIVE_INFINITY
      this.floorNow = Number.POSITIVE_INFINITY
      this.floorSince = now
    }
    this.floorNow = Math.min(this.floorNow, delay)
  }
}
