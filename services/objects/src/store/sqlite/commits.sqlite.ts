import { UniqueConflict } from '../../core/conflicts.js'
import { changeBounds, recordChange } from './outbox.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type RecordChanges, type Transactions } from './transactions.sqlite.js'
import type { GroupCommit } from './wal-sync.sqlite.js'

/** The transactions of the store's one connection, the number of the last event committed, and who hears of commits. */
export class Commits implements Transactions {
  /** the number of the last event this process committed (0: none yet) */
  committed: number
  readonly listeners = new Set<() => void>()

  /** `group` counts commits and flushes them (wal-sync.sqlite.ts); answers wait for it in server.ts */
  constructor (private readonly st: Statements, private readonly clock: () => number, private readonly group: GroupCommit = { committed: () => {}, sync: () => Promise.resolve() }) {
    this.committed = changeBounds(st).last
  }

  write<T> (fn: (record: RecordChanges, at: number, appended: (seq: number) => void) => T): Promise<T> {
    const { st } = this
    let result: T
    let last = 0
    const at = this.clock()
    try {
      result = st.db.transaction(() => fn((drafts) => { for (const d of drafts) last = recordChange(st, d, at) }, at, (seq) => { last = seq }))()
    } catch (err) {
      return Promise.reject((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? new UniqueConflict() : err)
    }
    this.group.committed()
    if (last > 0) {
      this.committed = last
      for (const l of this.listeners) l()
    }
    return Promise.resolve(result)
  }

  unseen<T> (fn: () => T): Promise<T> {
    return answer(() => {
      const result = this.st.db.transaction(fn)()
      this.group.committed()
      return result
    })
  }
}
