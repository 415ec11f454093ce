import { present } from '@content/platform'
import type { ChangesPort } from './ports.js'
import type { ChangeEvent } from './change-events.js'
import { coalesced } from './coalesced.js'
import { nextBoundary } from './visibility.js'

/** Longest delay a Node timer accepts; later boundaries are re-checked when it fires. */
const MAX_DELAY = 2_147_483_647
/** Events per message, and per outbox read. */
const BATCH = 500

/**
 * Between two full batches the feed lets the event loop run: a large import leaves hundreds of thousands
 * of events, and read back in one go they held every answer of the service (the import's own among them)
 * for about a second. A write of fewer events than a batch is told as before, within the turn.
 */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * The next window boundary after `now` that `events` tell of, from the access each recorded (its
 * object's dates as the write left them); undefined when one of them recorded none (a purged
 * object's, or an event recorded before events carried access), so that only the store can say.
 */
export function boundaryOfEvents (events: readonly ChangeEvent[], now: number): number | null | undefined {
  const starts: number[] = []
  const ends: number[] = []
  for (const { access } of events) {
    if (access === undefined) return undefined
    if (access.start_date !== undefined) starts.push(access.start_date)
    if (access.end_date !== undefined) ends.push(access.end_date)
  }
  return nextBoundary(starts, ends, now)
}

/** One message of the feed (objects.proto `Change`). */
export interface FeedMessage {
  store_id: string
  /** start over: nothing cached before may be served */
  reset: boolean
  /** a publication-window boundary passed */
  clock: boolean
  events: ChangeEvent[]
  /** the feed's position after this message */
  seq: number
}

export interface ChangeFeedDeps {
  storeId: string
  changes: ChangesPort
  now: () => number
  /** the next instant after `now` at which some object enters or leaves its publication window */
  nextBoundary: (now: number) => Promise<number | null>
  onError?: (err: unknown) => void
  /**
   * How often the outbox is read even when no commit was announced: other processes on the same store
   * (SQLite files shared by processes, a MongoDB change stream that missed something) commit too.
   */
  pollMs?: number
}

type Listener = (message: FeedMessage) => void

/**
 * Follows the store's outbox and tells subscribers each new event in order, and when a publication-window
 * boundary passes (a timer armed at the store's next boundary, brought forward to those the writes'
 * events record), so a cached read never outlives the data or the clock. `pull()` runs after every
 * commit: this process's, or another replica's seen on the database.
 */
export class ChangeFeed {
  private seq = 0
  private readonly listeners = new Set<Listener>()
  private readonly closers = new Set<() => void>()
  private timer: NodeJS.Timeout | null = null
  /** the instant the timer is armed for */
  private armedAt: number | null = null
  /** per store query of the boundary under way: the boundaries events told meanwhile (its snapshot may predate them) */
  private readonly asking = new Set<{ told: number | null }>()
  /** the store's last answer failed: what it alone knows is not armed, so the next drain asks again */
  private unasked = true
  private poller: NodeJS.Timeout | null = null
  private closed = false
  private readonly puller = coalesced(() => this.drain(), (err) => this.deps.onError?.(err))

  constructor (private readonly deps: ChangeFeedDeps) {}

  get storeId (): string { return this.deps.storeId }
  /** the number of the last event told to subscribers */
  get position (): number { return this.seq }

  /** Starts from the outbox's end: earlier events are for subscribers that resume (see `resume`). */
  async start (): Promise<void> {
    this.seq = (await this.deps.changes.bounds()).last
    void this.arm()
    if (this.deps.pollMs) {
      this.poller = setInterval(() => this.pull(), this.deps.pollMs)
      this.poller.unref()
    }
  }

  /** `onClose` runs when the feed closes (streams end so a shutdown can drain). */
  subscribe (listener: Listener, onClose?: () => void): () => void {
    this.listeners.add(listener)
    if (onClose) this.closers.add(onClose)
    return () => {
      this.listeners.delete(listener)
      if (onClose) this.closers.delete(onClose)
    }
  }

  /** Reads what the outbox holds past the position and tells it; calls while one runs fold into one more round. */
  pull (): void {
    if (!this.closed) this.puller.run()
  }

  private async drain (): Promise<void> {
    let told = false
    // the boundary the told events bring (undefined: one of them cannot say, the store is asked)
    let boundary: number | null | undefined = null
    for (;;) {
      const events = await this.deps.changes.after(this.seq, BATCH)
      if (events.length === 0 || this.closed) break
      this.seq = present(events[events.length - 1], 'the last event').seq
      this.tell({ store_id: this.deps.storeId, reset: false, clock: false, events, seq: this.seq })
      told = true
      if (boundary !== undefined) {
        const more = boundaryOfEvents(events, this.deps.now())
        boundary = more === undefined ? undefined : earlier(boundary, more)
      }
      // a short batch is the outbox's end: what commits after it pulls again (a pull while this runs
      // folds into one more round), so reading on would only find nothing, a statement per commit
      if (events.length < BATCH) break
      await turn()
    }
    if (!told) return
    // A write's events carry its object's dates: a boundary they bring is armed without asking the store
    // (a statement per commit otherwise). A boundary the write took away stays armed: its clock message
    // comes early and harmless (cached reads dropped), and the re-arm then asks the store.
    if (boundary !== undefined) this.fold(boundary)
    if (boundary === undefined || this.unasked) await this.arm()
  }

  /**
   * The messages that bring a subscriber at `afterSeq` of `storeId` up to the position, or null when
   * they are not retained (another store, a number from the future, or pruned).
   */
  async resume (storeId: string, afterSeq: number): Promise<FeedMessage[] | null> {
    const upTo = this.seq
    if (storeId !== this.deps.storeId || afterSeq > upTo) return null
    const { first } = await this.deps.changes.bounds()
    if (afterSeq < upTo && (first === null || first > afterSeq + 1)) return null
    const messages: FeedMessage[] = []
    let from = afterSeq
    while (from < upTo) {
      const events = (await this.deps.changes.after(from, BATCH)).filter((e) => e.seq <= upTo)
      if (events.length === 0) break
      from = present(events[events.length - 1], 'the last event').seq
      messages.push({ store_id: this.deps.storeId, reset: false, clock: false, events, seq: from })
      if (events.length === BATCH) await turn()
    }
    return messages
  }

  private tell (message: FeedMessage): void {
    for (const listener of this.listeners) listener(message)
  }

  /** Schedules a clock message at the next window boundary, as the store tells it. */
  async arm (): Promise<void> {
    if (this.closed) return
    const meanwhile = { told: null as number | null }
    this.asking.add(meanwhile)
    let next: number | null
    try {
      next = await this.deps.nextBoundary(this.deps.now())
    } catch (err) {
      this.unasked = true
      this.deps.onError?.(err)
      return
    } finally {
      this.asking.delete(meanwhile)
    }
    this.unasked = false
    this.setTimer(earlier(next, meanwhile.told))
  }

  /** Arms the timer for `boundary` too, when it comes before the one armed. */
  private fold (boundary: number | null): void {
    if (boundary === null) return
    for (const query of this.asking) query.told = earlier(query.told, boundary)
    if (this.armedAt === null || boundary < this.armedAt) this.setTimer(boundary)
  }

  private setTimer (next: number | null): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.armedAt = null
    if (next === null || this.closed) return
    const boundary = next
    this.armedAt = boundary
    const delay = Math.max(0, boundary - this.deps.now())
    this.timer = setTimeout(() => {
      // A timer may fire a little before its instant (its start is the event loop's cached time): told
      // then, the round would find the boundary not yet passed, and the re-arm, a moment later, would
      // find it behind, so no clock message would ever tell it. It is told once the clock has reached it.
      this.timer = null
      this.armedAt = null
      if (delay > MAX_DELAY || this.deps.now() < boundary) return void this.arm()
      this.tell({ store_id: this.deps.storeId, reset: false, clock: true, events: [], seq: this.seq })
      void this.arm()
    }, Math.min(delay, MAX_DELAY))
    this.timer.unref()
  }

  close (): void {
    this.closed = true
    this.armedAt = null
    if (this.timer) clearTimeout(this.timer)
    if (this.poller) clearInterval(this.poller)
    this.listeners.clear()
    const closers = [...this.closers]
    this.closers.clear()
    for (const close of closers) close()
  }
}

/** The earlier of two instants (null: none). */
const earlier = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b))
