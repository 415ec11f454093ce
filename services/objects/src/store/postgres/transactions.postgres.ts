import type { Postgres } from '@content/platform/postgres'
import type { ChangeDraft } from '../../core/change-events.js'
import { TargetGone, UniqueConflict } from '../../core/conflicts.js'
import { Db, SQLSTATE, bulkDb, sqlState } from './db.postgres.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import { changeRowsNow, commitWithChanges, type Known } from './outbox.postgres.js'
import type { Sequencer } from './sequencer.postgres.js'

/** A write's transaction as its steps use it: its statements, its time, and its change events, recorded as each step is done. */
export interface PgWrite {
  readonly db: Db
  /** when the write runs (ms): the events' time */
  readonly at: number
  /** Records change events now (their types and surroundings are read at this moment); they are numbered at commit. */
  record(drafts: readonly ChangeDraft[]): Promise<void>
  /** The first of `count` numbers for events the write copies into the outbox numbered itself (a fixtures import, Sequencer.reserve) */
  reserveNumbers(count: number): Promise<number>
  /** What the transaction knows for its events: an object it created (its type, and that it has no links yet) */
  created(id: number, type: ObjectTypeName): void
  /** …and that it now has links: its later events read their surroundings */
  linked(id: number): void
}

/** A committed write: its answer, the ids of the events it recorded unnumbered, and the last number it gave its own (0: none). */
interface Committed<T> { value: T, ids: number[], numberedUpTo: number }

/** How often a write that lost a deadlock or a serialization check is run again from its start. */
const ATTEMPTS = 4

/**
 * How a write's transaction begins: its statements planned once per connection, for no value in
 * particular (`plan_cache_mode`), where PostgreSQL's own choice planned the reads of a write (its
 * object, details, counts, the surroundings of its events) again at every run: a list of ids as a
 * parameter looks dearer to a generic plan than to one made for a single id, so the generic one never
 * won. A write's statements are keyed by ids, whose plans do not change with the values; the lists,
 * whose plans do, are read outside writes (select.postgres.ts, Db.perRun). A fixtures import keeps the
 * default: its statements run once, over tables whose statistics it changes as it goes. Planning was a
 * third of PostgreSQL's time in a create (`loadtest/README.md`, "A write's statements planned once").
 */
const BEGIN = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan'

/**
 * A write's failure as its caller sees it: a unique index refused it, an object it links to was deleted
 * by a concurrent write after core checked it (a foreign key refused the row), or what PostgreSQL said.
 */
function refusal (err: unknown): unknown {
  const state = sqlState(err)
  if (state === SQLSTATE.uniqueViolation) return new UniqueConflict()
  if (state === SQLSTATE.foreignKeyViolation) return new TargetGone()
  return err
}

/**
 * The store's transactions on the pool. Each write runs in a transaction of its own on a connection of
 * its own (READ COMMITTED: each statement sees what committed before it), records its events as it goes
 * and appends them unnumbered; once it committed, the sequencer numbers them (sequencer.postgres.ts) and
 * the write answers. Writes run and commit in parallel. A write that lost a deadlock or a serialization
 * check is run again, whole.
 */
export class Transactions {
  /** the number of the last event this process committed (0: none yet) */
  committed = 0

  /** `listeners`: told after each write whose events are numbered */
  constructor (private readonly postgres: Postgres, private readonly clock: () => number, private readonly sequencer: Sequencer,
    private readonly listeners: Set<() => void>) {}

  /** `bulk`: a fixtures import, whose statements may run past the statement timeout (db.postgres.ts bulkDb) */
  async write<T> (fn: (tx: PgWrite) => Promise<T>, { bulk = false } = {}): Promise<T> {
    const { value, ids, numberedUpTo } = await this.attempts(fn, bulk)
    let last = numberedUpTo
    // committed and durable: the answer waits for its events' numbers, the position a change feed will
    // reach. A numbering that fails (the database went away just now) does not unmake the write: a later
    // run numbers its events, and the answer goes without the number.
    if (ids.length > 0) {
      try {
        last = Math.max(last, await this.sequencer.numbered(ids))
      } catch {
        return value
      }
    }
    if (last === 0) return value
    this.committed = Math.max(this.committed, last)
    for (const l of this.listeners) l()
    return value
  }

  /** Runs `fn` until it commits, again after a deadlock or a serialization failure (nothing of it was applied then). */
  private async attempts<T> (fn: (tx: PgWrite) => Promise<T>, bulk = false): Promise<Committed<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(fn, bulk)
      } catch (err) {
        const state = sqlState(err)
        if (attempt < ATTEMPTS && (state === SQLSTATE.deadlock || state === SQLSTATE.serializationFailure)) continue
        throw refusal(err)
      }
    }
  }

  /** A transaction no read would show (uploads, webhooks, idempotency answers): no events, listeners not told. */
  async unseen<T> (fn: (db: Db) => Promise<T>): Promise<T> {
    return (await this.attempts((tx) => fn(tx.db))).value
  }

  /** One attempt on a connection of the pool (a failure of the database itself answered as the platform answers it: 503, 504). */
  private once<T> (fn: (tx: PgWrite) => Promise<T>, bulk: boolean): Promise<Committed<T>> {
    return this.postgres.withClient(async (client) => {
      await client.query(bulk ? 'BEGIN' : BEGIN)
      try {
        const db = bulk ? await bulkDb(client) : new Db(client)
        const rows: unknown[][] = []
        let numberedUpTo = 0
        const at = this.clock()
        const known: Known = { types: new Map(), fresh: new Set() }
        const tx: PgWrite = {
          db,
          at,
          record: async (drafts) => { rows.push(...await changeRowsNow(db, known, drafts, at)) },
          reserveNumbers: async (count) => {
            const first = await this.sequencer.reserve(db, count)
            numberedUpTo = first + count - 1
            return first
          },
          created: (id, type) => { known.types.set(id, type); known.fresh.add(id) },
          linked: (id) => { known.fresh.delete(id) },
        }
        const value = await fn(tx)
        const ids = await commitWithChanges(client, rows)
        return { value, ids, numberedUpTo }
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      }
    })
  }
}
