import type { Postgres } from '@content/platform/postgres'
import pg from 'pg'
import { LIFT_TIMEOUT, bulkQuery, type Db } from './db.postgres.js'

/** The advisory lock one numbering run holds, whatever process runs it. */
const SEQUENCER_LOCK = 4_801_003

/**
 * A run finds the unnumbered events through the partial index of them (`changes_unnumbered`), which
 * keeps an entry for every event numbered since the table's last vacuum. A bitmap scan, which the planner
 * picks for it, reads every such entry and visits its heap page at every run: 30,000 of them took a run
 * 1.3 ms on an outbox never vacuumed (autovacuum is off on the build machines, and on a busy outbox it
 * lags). A plain index scan marks the entries it finds dead, so that the runs after it skip them: 0.07 ms.
 */
const INDEX_WALK = 'SET LOCAL enable_bitmapscan = off'

/**
 * Numbers committed change events (outbox.postgres.ts): a run, under a transaction-scoped advisory lock,
 * takes every committed event not yet numbered, a write's events together in the order they were recorded
 * and the writes in the order they recorded their first, gives them the numbers
 * after `change_head`'s, and tells every process that listens (NOTIFY, delivered on its commit). Runs of
 * all processes follow one another, each commits its contiguous range at once, and a reader sees only
 * numbered events: the numbers have no gaps and never appear out of order. A write that commits after
 * another it saw recorded its events later, so it is numbered after it.
 *
 * Writes run and commit in parallel; what is serialized is a run, which numbers the events of every
 * write committed since the last (one commit for many). A write answers once its events are numbered
 * (`numbered`), so the number it answers is one a change feed will reach.
 */
export class Sequencer {
  private running: Promise<void> | null = null
  private again = false
  private readonly waiting = new Map<number, { resolve: (seq: number) => void, reject: (err: unknown) => void }[]>()
  private timer: NodeJS.Timeout | null = null

  /** The process's channel and origin as SQL literals: a run's statements take no parameters (`run`). */
  private readonly channel: string
  private readonly origin: string

  /** `told`: a run of this process numbered other processes' events only (up to `last`) */
  constructor (private readonly postgres: Postgres, channel: string, origin: string, private readonly told: (last: number) => void) {
    this.channel = pg.escapeLiteral(channel)
    this.origin = pg.escapeLiteral(origin)
  }

  /** The number of the last of `ids` (a committed write's events) once they are numbered, by this process's run or another's. */
  numbered (ids: number[]): Promise<number> {
    const last = ids[ids.length - 1] as number
    const done = new Promise<number>((resolve, reject) => {
      const list = this.waiting.get(last) ?? []
      list.push({ resolve, reject })
      this.waiting.set(last, list)
    })
    this.kick()
    return done
  }

  /** Runs now, and every `everyMs` (events a crashed writer committed but never saw numbered). */
  start (everyMs: number): void {
    this.timer = setInterval(() => this.kick(), everyMs)
    this.timer.unref()
    this.kick()
  }

  async stop (): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.running
  }

  /** A run now, or one more after the run in progress (which may have begun before the caller's commit). */
  private kick (): void {
    if (this.running !== null) {
      this.again = true
      return
    }
    this.running = this.loop().finally(() => { this.running = null })
  }

  private async loop (): Promise<void> {
    do {
      this.again = false
      try {
        const { last, numbers } = await this.run([...this.waiting.keys()])
        // a write tells of its own events once they are numbered; a run that numbered only others' tells
        if (this.settle(numbers) === 0 && last > 0) this.told(last)
      } catch (err) {
        // the waiters of this round fail; a later kick (a new write, the timer) tries again
        for (const list of this.waiting.values()) for (const w of list) w.reject(err)
        this.waiting.clear()
      }
    } while (this.again)
  }

  /**
   * One numbering run in its own transaction, then the numbers of `ids` (the last events of the writes
   * waiting, by this run or another process's), in one round trip: no statement of it takes a
   * parameter, so they go as one message, where each was a round trip of its own, four after every
   * commit (loadtest/README.md, "A numbering run in one round trip"). Answers the last number given (0:
   * none) and each of `ids` with its number (null: not numbered yet).
   */
  private run (ids: number[]): Promise<{ last: number, numbers: [number, number | null][] }> {
    const wanted = ids.length === 0 ? '' : `; SELECT id, seq FROM changes WHERE id = ANY('{${ids.map(integer).join(',')}}'::bigint[])`
    return this.postgres.withClient(async (client) => {
      try {
        // the events of a fixtures import are many, and numbering them takes seconds (db.postgres.ts, the bulk bound)
        const results = await client.query(bulkQuery(`BEGIN; ${LIFT_TIMEOUT}; ${INDEX_WALK}; SELECT pg_advisory_xact_lock(${SEQUENCER_LOCK}); ${this.numbering()}; COMMIT${wanted}`)) as unknown as pg.QueryResult[]
        const last = Number((results[4]?.rows[0] as { last: string | null } | undefined)?.last ?? 0)
        const numbers = (results[6]?.rows ?? []).map((r: { id: string, seq: string | null }): [number, number | null] => [Number(r.id), r.seq === null ? null : Number(r.seq)])
        return { last, numbers }
      } catch (err) {
        // the message stops at the statement that failed: the transaction it began is rolled back
        await client.query('ROLLBACK').catch(() => {})
        throw err
      }
    })
  }

  /**
   * The statement that numbers every committed event not yet numbered, under the lock its transaction
   * holds, answering the last number given (`last`, null: none). A statement of its own: its snapshot,
   * taken once the lock is held, sees every run before it. A write's events go together, the writes by
   * their first event (a write that saw another's commit recorded its events after it); identity values
   * of concurrent writes interleave.
   */
  private numbering (): string {
    return `WITH unnumbered AS (
        SELECT id, min(id) OVER (PARTITION BY xact) AS first FROM changes WHERE seq IS NULL),
      pending AS (SELECT id, row_number() OVER (ORDER BY first, id) AS k, count(*) OVER () AS n FROM unnumbered),
      head AS (UPDATE change_head SET last = last + (SELECT COALESCE(MAX(n), 0) FROM pending) WHERE EXISTS (SELECT 1 FROM pending) RETURNING last),
      numbered AS (UPDATE changes c SET seq = head.last - p.n + p.k FROM pending p, head WHERE c.id = p.id)
      SELECT (SELECT last FROM head) AS last, (SELECT pg_notify(${this.channel}, last || ' ' || ${this.origin}) FROM head) AS told`
  }

  /**
   * The numbers of `count` events a fixtures import is about to copy into the outbox, in its own
   * transaction (`db`): the first of them. The import holds the numbering lock from here to its commit,
   * so it numbers what others committed before it, then takes the next `count` numbers; no run can give
   * a number meanwhile, and its events, with their numbers, are seen when it commits, after every number
   * before them (the other processes told then, NOTIFY being delivered at commit). Its events are written
   * once, numbered: numbering them after the commit rewrote each row, 10 of 59 s of PostgreSQL's time in
   * an import of 200,000 objects (loadtest/README.md, "An import numbers its own events"). Called once,
   * at the import's end: what commits meanwhile waits for its number only as long as the last copy.
   */
  async reserve (db: Db, count: number): Promise<number> {
    await db.run(`SELECT pg_advisory_xact_lock(${SEQUENCER_LOCK})`)
    await db.one(this.numbering())
    const row = await db.one<{ first: number }>(`UPDATE change_head SET last = last + @count
      RETURNING last - @count + 1 AS first, pg_notify(${this.channel}, last || ' ' || ${this.origin}) AS told`, { count })
    if (row === undefined) throw new Error('the outbox has no head row')
    return row.first
  }

  /** Answers every waiter whose event `numbers` shows numbered; answers how many. */
  private settle (numbers: [number, number | null][]): number {
    let answered = 0
    for (const [id, seq] of numbers) {
      if (seq === null) continue
      for (const w of this.waiting.get(id) ?? []) w.resolve(seq)
      answered++
      this.waiting.delete(id)
    }
    // committed but not numbered yet (another process's run took the lock first and began before): once more
    if (this.waiting.size > 0) this.again = true
    return answered
  }
}

/** An event's id as written into a statement: an integer, never anything else. */
function integer (id: number): number {
  if (!Number.isSafeInteger(id)) throw new Error(`not an event id: ${id}`)
  return id
}
