import type { ClientGone } from '@content/platform'

/** How one read of a batch ended. */
export type Outcome<R> = { ok: true, value: R } | { ok: false, error: unknown }

export interface CoalescerTransport<Q, R> {
  /** one read alone: the read's own unary call, as without coalescing (it keeps its own deadline) */
  one(query: Q): Promise<R>
  /** two or more reads as one call, its deadline the latest of theirs: an outcome per read, in order; a rejection fails them all */
  many(queries: Q[], deadline: number, signal: AbortSignal): Promise<Outcome<R>[]>
}

export interface CoalescerOptions<Q> {
  /** when the reads gathered so far leave (default setImmediate: at the end of this event-loop turn) */
  schedule?: (flush: () => void) => void
  now?: () => number
  /** the error of a read past its own deadline (what its own call would have failed with) */
  deadlineExceeded: () => unknown
  /** the error of a read whose client went away */
  cancelled: () => unknown
  /** a batch holds at most this many reads, or this many of its group; more leave as several batches */
  maxBatch?: number | ((group: string) => number)
  /**
   * Reads of different groups never share a batch: a batch answers when its slowest read is done, so
   * reads of like cost travel together (a single object does not wait for a page of a hundred).
   */
  groupOf?: (query: Q) => string
}

interface Member<Q, R> {
  query: Q
  deadline: number
  resolve: (value: R) => void
  reject: (err: unknown) => void
  done: boolean
  timer?: NodeJS.Timeout
  batch?: InFlight
  /** stops listening for the client's going */
  unlisten?: () => void
}

interface InFlight { open: number, answered: boolean, controller: AbortController }

/**
 * Gathers the reads submitted in one event-loop turn and sends them together. Nothing a read's own call
 * guarantees is lost: each settles with its own outcome (one read's failure is its own), a read past
 * its own deadline fails as its call would (the batch waits for the latest deadline), a read whose
 * client went away leaves the batch (and a batch all of whose reads left is cancelled), and a read
 * alone in its turn travels as its own call, so under low load no read waits for another.
 */
export class CallCoalescer<Q, R> {
  private pending: Member<Q, R>[] = []
  private readonly schedule: (flush: () => void) => void
  private readonly now: () => number
  private readonly maxBatch: (group: string) => number

  constructor (private readonly transport: CoalescerTransport<Q, R>, private readonly options: CoalescerOptions<Q>) {
    this.schedule = options.schedule ?? setImmediate
    this.now = options.now ?? Date.now
    const max = options.maxBatch ?? 128
    this.maxBatch = typeof max === 'number' ? () => max : max
  }

  submit (query: Q, deadline: number, client?: ClientGone): Promise<R> {
    if (client?.gone) return Promise.reject(this.options.cancelled())
    return new Promise<R>((resolve, reject) => {
      const member: Member<Q, R> = { query, deadline, resolve, reject, done: false }
      if (client) member.unlisten = client.onGone(() => this.settle(member, { ok: false, error: this.options.cancelled() }))
      if (this.pending.length === 0) this.schedule(() => this.flush())
      this.pending.push(member)
    })
  }

  /** Sends what the turn gathered: each batch round-robins over the replicas as a call does. */
  private flush (): void {
    const members = this.pending.filter((m) => !m.done)
    this.pending = []
    const groupOf = this.options.groupOf
    const groups = new Map<string, Member<Q, R>[]>()
    for (const m of members) {
      const key = groupOf ? groupOf(m.query) : ''
      const group = groups.get(key)
      if (group) group.push(m)
      else groups.set(key, [m])
    }
    for (const [key, group] of groups) {
      const max = Math.max(1, this.maxBatch(key))
      for (let i = 0; i < group.length; i += max) this.send(group.slice(i, i + max))
    }
  }

  private send (members: Member<Q, R>[]): void {
    const [first] = members
    if (first === undefined) return
    if (members.length === 1) {
      this.transport.one(first.query).then((value) => this.settle(first, { ok: true, value }), (error: unknown) => this.settle(first, { ok: false, error }))
      return
    }
    const deadline = Math.max(...members.map((m) => m.deadline))
    const batch: InFlight = { open: members.length, answered: false, controller: new AbortController() }
    const now = this.now()
    for (const m of members) {
      m.batch = batch
      // a read whose own deadline comes before the batch's fails at its own, as its call would
      if (m.deadline < deadline) m.timer = setTimeout(() => this.settle(m, { ok: false, error: this.options.deadlineExceeded() }), Math.max(0, m.deadline - now))
    }
    this.transport.many(members.map((m) => m.query), deadline, batch.controller.signal).then((outcomes) => {
      batch.answered = true
      const at = this.now()
      members.forEach((m, i) => {
        const outcome = outcomes[i] ?? { ok: false, error: new Error('the batch answered fewer reads than it was sent') }
        this.settle(m, outcome.ok && at > m.deadline ? { ok: false, error: this.options.deadlineExceeded() } : outcome)
      })
    }, (error: unknown) => {
      batch.answered = true
      for (const m of members) this.settle(m, { ok: false, error })
    })
  }

  private settle (m: Member<Q, R>, outcome: Outcome<R>): void {
    if (m.done) return
    m.done = true
    if (m.timer) clearTimeout(m.timer)
    m.unlisten?.()
    if (m.batch) {
      m.batch.open -= 1
      // every read of the batch left before its answer: a batch nobody waits for is cancelled
      if (m.batch.open === 0 && !m.batch.answered) m.batch.controller.abort()
    }
    if (outcome.ok) m.resolve(outcome.value)
    else m.reject(outcome.error)
  }
}
