import { UniqueConflict } from '../../core/conflicts.js'
import { changeBounds, recordChange } from './outbox.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions, type WriteFn } from './transactions.sqlite.js'
import type { GroupCommit } from './wal-sync.sqlite.js'

interface Queued {
  fn: WriteFn<unknown>
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
}

type Outcome = { ok: true, value: unknown, last: number } | { ok: false, error: unknown }

/** A write's failure as its caller sees it: a unique index refused it, or what SQLite said. */
const refusal = (err: unknown): unknown => ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? new UniqueConflict() : err)

/**
 * The transactions of the store's one connection, the number of the last event committed, and who hears
 * of commits.
 *
 * Writes asked for in one turn of the event loop commit together: each runs in a savepoint of one
 * transaction, in the order asked, and the transaction commits once at the end of the turn. A commit
 * writes every page the transaction dirtied to the WAL, and the writes of a turn dirty mostly the same
 * pages (the tables' and indexes' last leaves, the parent's tree rows, the outbox), so a batch writes a
 * fraction of the pages its writes would alone (the commit was a sixth of the objects service's busy time
 * under creates, loadtest/README.md). A write that fails rolls back its own savepoint and fails alone; a
 * failure that ends the transaction fails every write of the turn and keeps none. No answer waits for
 * anyone else's: a write alone in its turn commits at the turn's end, as it would have.
 */
export class Commits implements Transactions {
  /** the number of the last event this process committed (0: none yet) */
  committed: number
  readonly listeners = new Set<() => void>()
  private queue: Queued[] = []

  /** `group` counts commits and flushes them (wal-sync.sqlite.ts); answers wait for it in server.ts */
  constructor (private readonly st: Statements, private readonly clock: () => number, private readonly group: GroupCommit = { committed: () => {}, sync: () => Promise.resolve() }) {
    this.committed = changeBounds(st).last
  }

  write<T> (fn: WriteFn<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(this.commitQueued)
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
    })
  }

  /** Runs `fn` in a transaction of its own now, after the writes queued before it (a fixtures import changes connection settings around it). */
  writeNow<T> (fn: WriteFn<T>): Promise<T> {
    this.commitQueued()
    return new Promise<T>((resolve, reject) => { this.commit([{ fn, resolve: resolve as (value: unknown) => void, reject }]) })
  }

  unseen<T> (fn: () => T): Promise<T> {
    this.commitQueued()
    return answer(() => {
      const result = this.st.db.transaction(fn)()
      this.group.committed()
      return result
    })
  }

  /** Commits the writes queued so far (at the end of a turn, or before a transaction that must follow them). */
  readonly commitQueued = (): void => {
    const queued = this.queue
    if (queued.length === 0) return
    this.queue = []
    this.commit(queued)
  }

  /** One transaction for `writes`, each in a savepoint when there are several; listeners are told once it commits, then each write is answered. */
  private commit (writes: Queued[]): void {
    const { st } = this
    const outcomes: Outcome[] = []
    const run = (fn: WriteFn<unknown>): Outcome => {
      let last = 0
      const at = this.clock()
      const value = fn((drafts) => { for (const d of drafts) last = recordChange(st, d, at) }, at, (seq) => { last = seq })
      return { ok: true, value, last }
    }
    try {
      st.db.transaction(() => {
        const [only] = writes
        if (writes.length === 1 && only) {
          outcomes.push(run(only.fn))
          return
        }
        for (const w of writes) {
          try {
            outcomes.push(st.db.transaction(() => run(w.fn))())
          } catch (err) {
            // a failure SQLite answers by ending the whole transaction (a full disk, an I/O error) fails the batch
            if (!st.db.inTransaction) throw err
            outcomes.push({ ok: false, error: refusal(err) })
          }
        }
      })()
    } catch (err) {
      for (const w of writes) w.reject(refusal(err))
      return
    }
    this.group.committed()
    const last = outcomes.reduce((max, o) => (o.ok ? Math.max(max, o.last) : max), 0)
    if (last > 0) {
      this.committed = last
      for (const l of this.listeners) l()
    }
    writes.forEach((w, i) => {
      const o = outcomes[i]
      if (o?.ok) w.resolve(o.value)
      else w.reject(o?.error)
    })
  }
}
