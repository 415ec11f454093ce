import type { Postgres } from '@content/platform/postgres'
import type { ChangeDraft } from '../../core/change-events.js'
import { UniqueConflict } from '../../core/conflicts.js'
import { Db, SQLSTATE, sqlState } from './db.postgres.js'
import { appendChanges, changeRowNow } from './outbox.postgres.js'

/** A write's transaction: its statements, its time, and its change events, recorded as each step is done. */
export interface Tx {
  readonly db: Db
  /** when the write runs (ms): the events' time */
  readonly at: number
  /** Records change events now (their types and surroundings are read at this moment); they are numbered at commit. */
  record(drafts: readonly ChangeDraft[]): Promise<void>
  /** Rows of events computed by the write itself (a fixtures plan), numbered at commit after those recorded before. */
  recordRows(rows: unknown[][]): void
}

/** How often a write that lost a deadlock or a serialization check is run again from its start. */
const ATTEMPTS = 4

/** A write's failure as its caller sees it: a unique index refused it, or what PostgreSQL said. */
const refusal = (err: unknown): unknown => (sqlState(err) === SQLSTATE.uniqueViolation ? new UniqueConflict() : err)

/**
 * The store's transactions on the pool. Each write runs in a transaction of its own on a connection of
 * its own (READ COMMITTED: each statement sees what committed before it), records its events as it goes,
 * and numbers and appends them last (outbox.postgres.ts), so writes run in parallel up to that point. A
 * write that lost a deadlock (two writers taking the same count rows) is run again, whole.
 */
export class Transactions {
  /** the number of the last event this process committed (0: none yet) */
  committed = 0
  readonly listeners = new Set<() => void>()

  /** `channel`: where commits are told (outbox.postgres.ts); `origin`: this process, as its notices name it */
  constructor (private readonly postgres: Postgres, private readonly clock: () => number, private readonly channel: string, private readonly origin: string) {}

  async write<T> (fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { value, last } = await this.once(fn)
        if (last > 0) {
          this.committed = Math.max(this.committed, last)
          for (const l of this.listeners) l()
        }
        return value
      } catch (err) {
        const state = sqlState(err)
        if (attempt < ATTEMPTS && (state === SQLSTATE.deadlock || state === SQLSTATE.serializationFailure)) continue
        throw refusal(err)
      }
    }
  }

  /** A transaction no read would show (uploads, webhooks, idempotency answers): no events, listeners not told. */
  async unseen<T> (fn: (db: Db) => Promise<T>): Promise<T> {
    return (await this.once((tx) => fn(tx.db))).value
  }

  /** One attempt on a connection of the pool (a failure of the database itself answered as the platform answers it: 503, 504). */
  private once<T> (fn: (tx: Tx) => Promise<T>): Promise<{ value: T, last: number }> {
    return this.postgres.withClient(async (client) => {
      await client.query('BEGIN')
      try {
        const db = new Db(client)
        const rows: unknown[][] = []
        const at = this.clock()
        const tx: Tx = {
          db,
          at,
          record: async (drafts) => { for (const d of drafts) rows.push(await changeRowNow(db, d, at)) },
          recordRows: (more) => { for (const r of more) rows.push(r) },
        }
        const value = await fn(tx)
        const last = rows.length === 0 ? 0 : await appendChanges(db, rows, this.channel, this.origin)
        await client.query('COMMIT')
        return { value, last }
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      }
    })
  }
}
