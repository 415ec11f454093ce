import type Database from 'better-sqlite3'
import { DomainError } from '@content/platform'
import { UniqueConflict } from '../../core/conflicts.js'
import { changeBounds, lastChangeSeq, recordChange } from './outbox.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions, type WriteFn } from './transactions.sqlite.js'
import type { GroupCommit } from './wal-sync.sqlite.js'

/** A write run in the open transaction, answered once it commits. */
interface Done {
  value: unknown
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
}

/** What a write answered, and the number of the last event it recorded (0: none). */
interface Ran<T> {
  value: T
  last: number
}

/** The transaction the writes of the current turn run in. */
interface Turn {
  /** the last event committed when it began: what other readers may be told while it is open */
  base: number
  /** the last event its writes recorded */
  last: number
  writes: Done[]
  /** settles when it commits (or fails): what `settled()` waits for */
  commit: Promise<void>
  end: (err?: unknown) => void
}

/**
 * A write's failure as its caller sees it: a unique index refused it; the write lock was not free within
 * busy_timeout (another connection's long transaction: a background step on an overloaded machine), which
 * is a busy store, answered 503 with Retry-After rather than 500, and nothing of it was written; or what
 * SQLite said.
 */
const refusal = (err: unknown): unknown => {
  const code = String((err as { code?: unknown }).code)
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return new UniqueConflict()
  if (code.startsWith('SQLITE_BUSY')) return new DomainError('SERVICE_UNAVAILABLE', 'the store is busy; try again', { retry_after: 1 })
  return err
}

/**
 * The transactions of the store's one connection, the number of the last event committed, and who hears
 * of commits.
 *
 * The writes of one turn of the event loop share one transaction. The first opens it; each runs at once,
 * as it is asked, in a savepoint of its own, so a write's checks and its statements still run with no
 * other write between them (the service's one thread is what keeps them consistent); the transaction
 * commits at the end of the turn (`setImmediate`), and each write is answered then. A commit writes every
 * page the transaction dirtied to the WAL, and the writes of a turn dirty mostly the same pages (the
 * tables' and indexes' last leaves, the parent's tree rows, the outbox), so a turn writes a fraction of
 * the pages its writes would alone (the commit was a sixth of the objects service's busy time under
 * creates, loadtest/README.md). A write that fails rolls back its own savepoint and fails alone; a failure
 * that ends the transaction, or a failed commit, fails every write of the turn and keeps none. No answer
 * waits for anyone else's: a write alone in its turn commits at the turn's end, as it would have.
 *
 * Reads on the connection meanwhile see the turn's writes, as they would have seen them committed; their
 * answers wait for `settled()` (the store's `durable`), and the outbox is read only up to the turn's
 * `base` (`visibleUpTo`), so nothing of a turn leaves the service before it commits.
 */
export class Commits implements Transactions {
  /** the number of the last event this process committed (0: none yet) */
  committed: number
  readonly listeners = new Set<() => void>()
  private turn: Turn | null = null

  /** `group` counts commits and flushes them (wal-sync.sqlite.ts); answers wait for it in server.ts */
  constructor (private readonly st: Statements, private readonly clock: () => number, private readonly group: GroupCommit = { committed: () => {}, sync: () => Promise.resolve() }) {
    this.committed = changeBounds(st).last
  }

  write<T> (fn: WriteFn<T>): Promise<T> {
    const { st } = this
    let turn: Turn
    try {
      turn = this.turn ?? this.open()
    } catch (err) {
      return Promise.reject(refusal(err))
    }
    let ran: Ran<T>
    try {
      ran = this.run(fn, (tx) => tx())
    } catch (err) {
      // SQLite ends the whole transaction on some failures (a full disk, an I/O error): the turn is lost
      if (!st.db.inTransaction) this.end(turn, err)
      return Promise.reject(refusal(err))
    }
    if (ran.last > 0) turn.last = ran.last
    return new Promise<T>((resolve, reject) => { turn.writes.push({ value: ran.value, resolve: resolve as (value: unknown) => void, reject }) })
  }

  /**
   * Runs `fn` in a transaction of its own, after the turn's writes commit (a fixtures import). Alone in
   * its transaction it needs no savepoint, whose sub-journal would copy every page it changes.
   */
  writeNow<T> (fn: WriteFn<T>): Promise<T> {
    this.commitTurn()
    let ran: Ran<T>
    try {
      ran = this.run(fn, (tx) => tx.immediate())
    } catch (err) {
      return Promise.reject(refusal(err))
    }
    this.told(ran.last)
    return Promise.resolve(ran.value)
  }

  unseen<T> (fn: () => T): Promise<T> {
    this.commitTurn()
    return answer(() => {
      const result = this.st.db.transaction(fn)()
      this.group.committed()
      return result
    })
  }

  /** Resolves once the writes run so far have committed (at once when no turn is open); rejects if their commit failed. */
  settled (): Promise<void> {
    return this.turn?.commit ?? Promise.resolve()
  }

  /** The last event a reader may be told: while a turn is open, the last committed before it. */
  visibleUpTo (): number {
    return this.turn?.base ?? Number.MAX_SAFE_INTEGER
  }

  /** Commits the open turn now (before a transaction that must follow its writes, or at the end of the turn). */
  readonly commitTurn = (): void => {
    const turn = this.turn
    if (turn === null) return
    try {
      this.st.db.exec('COMMIT')
    } catch (err) {
      if (this.st.db.inTransaction) this.st.db.exec('ROLLBACK')
      this.end(turn, err)
      return
    }
    // a write a listener might ask for opens the next turn
    this.turn = null
    this.told(turn.last)
    this.end(turn)
  }

  /** Runs `fn` as a transaction (`how`: a savepoint in the open one, or one of its own), recording its events. */
  private run<T> (fn: WriteFn<T>, how: (tx: Database.Transaction<() => T>) => T): Ran<T> {
    const { st } = this
    let last = 0
    const at = this.clock()
    const value = how(st.db.transaction(() => fn((drafts) => { for (const d of drafts) last = recordChange(st, d, at) }, at, (seq) => { last = seq })))
    return { value, last }
  }

  /** After a commit: counted for flushing, and, when it recorded events up to `last`, listeners told. */
  private told (last: number): void {
    this.group.committed()
    if (last > 0) {
      this.committed = last
      for (const l of this.listeners) l()
    }
  }

  private open (): Turn {
    // IMMEDIATE: the write lock before anything is read, so another process's commit cannot leave the
    // turn's snapshot stale when it first writes (SQLITE_BUSY_SNAPSHOT); it waits (busy_timeout) instead
    this.st.db.exec('BEGIN IMMEDIATE')
    let base: number
    try {
      base = lastChangeSeq(this.st)
    } catch (err) {
      this.st.db.exec('ROLLBACK')
      throw err
    }
    let end: (err?: unknown) => void = () => {}
    const commit = new Promise<void>((resolve, reject) => { end = (err) => (err === undefined ? resolve() : reject(err)) })
    // nobody may be left with an unhandled rejection: a failed commit fails each write (and any waiter) itself
    commit.catch(() => {})
    const turn: Turn = { base, last: 0, writes: [], commit, end }
    this.turn = turn
    setImmediate(this.commitTurn)
    return turn
  }

  /** Answers the turn's writes: each its value once committed, or the failure that lost them all. */
  private end (turn: Turn, err?: unknown): void {
    if (this.turn === turn) this.turn = null
    turn.end(err)
    for (const w of turn.writes) {
      if (err === undefined) w.resolve(w.value)
      else w.reject(refusal(err))
    }
  }
}
