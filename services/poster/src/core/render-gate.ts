import { DomainError } from '@content/platform'

/** What a saturated gate answers: rendering and decoding share it with uploads' image checks. */
export type BusyReason = 'THUMBNAIL_BUSY' | 'UPLOAD_BUSY'

export interface RenderGateOptions {
  /** tasks running at once */
  concurrency: number
  /** tasks waiting for a slot; beyond that a request is refused at once */
  queue: number
  /** longest wait for a slot before a request is refused */
  maxWaitMs: number
  /** what a refusal tells the client to wait, in seconds */
  retryAfterSeconds?: number
  /** told of each refusal, with its reason (metrics) */
  onBusy?: (reason: BusyReason) => void
}

export interface RenderGateCounters {
  /** tasks that got a slot and ran */
  started: number
  /** requests that joined a task already under way for the same key */
  joined: number
  /** requests refused because every slot and the queue were taken, or the wait was too long */
  busy: number
}

interface Waiter {
  admit: () => void
  timer: NodeJS.Timeout
}

/**
 * Bounds image work: a few tasks at once, a bounded queue with a bounded wait, and one task per key
 * (concurrent requests for the same thumbnail share one render). Saturation is a 503 with a retry hint,
 * never an unbounded pile of decodes.
 */
export class RenderGate {
  readonly counters: RenderGateCounters = { started: 0, joined: 0, busy: 0 }
  private active = 0
  private readonly waiting: Waiter[] = []
  private readonly flights = new Map<string, Promise<unknown>>()

  constructor (private readonly options: RenderGateOptions) {}

  /** Runs `task` in a slot; with a key, a request for a key already under way joins that task. */
  run<T> (key: string | null, task: () => Promise<T>, busyReason: BusyReason = 'THUMBNAIL_BUSY'): Promise<T> {
    if (key !== null) {
      const flight = this.flights.get(key)
      if (flight !== undefined) {
        this.counters.joined++
        return flight as Promise<T>
      }
    }
    const result = this.inSlot(task, busyReason)
    if (key !== null) {
      this.flights.set(key, result)
      const forget = () => { if (this.flights.get(key) === result) this.flights.delete(key) }
      result.then(forget, forget)
    }
    return result
  }

  /** Tasks running and waiting now. */
  load (): { active: number, waiting: number } {
    return { active: this.active, waiting: this.waiting.length }
  }

  private async inSlot<T> (task: () => Promise<T>, busyReason: BusyReason): Promise<T> {
    await this.slot(busyReason)
    this.counters.started++
    try {
      return await task()
    } finally {
      this.release()
    }
  }

  private slot (busyReason: BusyReason): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active++
      return Promise.resolve()
    }
    if (this.waiting.length >= this.options.queue) return Promise.reject(this.busy(busyReason))
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1)
          reject(this.busy(busyReason))
        }, this.options.maxWaitMs),
      }
      this.waiting.push(waiter)
    })
  }

  /** A finished task hands its slot to the first waiter, if any. */
  private release (): void {
    const next = this.waiting.shift()
    if (next === undefined) {
      this.active--
      return
    }
    clearTimeout(next.timer)
    next.admit()
  }

  private busy (reason: BusyReason): DomainError {
    this.counters.busy++
    this.options.onBusy?.(reason)
    const retryAfter = this.options.retryAfterSeconds ?? 1
    return new DomainError(reason, 'image work is saturated; try again shortly', { retry_after: retryAfter })
  }
}
