import type { Statements } from './rows.sqlite.js'
import type { Transactions } from './transactions.sqlite.js'

/**
 * How long new text waits before it is indexed. At a thousand creates a second that is a batch of
 * about fifty, where the index's cost per create was least (text-index.sqlite.ts); searches meanwhile
 * check the pending texts themselves, a few dozen rows at most under such a load.
 */
export const TEXT_INDEX_DELAY_MS = 50
/** Texts indexed per transaction (250 documents like the bench's: 3–6 ms of the thread); more wait for the next. */
export const TEXT_INDEX_BATCH = 250

const PENDING_BATCH = 'SELECT id FROM text_pending ORDER BY id LIMIT @limit'

/**
 * Moves up to `limit` pending texts (text-index.sqlite.ts), the oldest first, into the index, inside the
 * caller's transaction; answers how many.
 */
export function indexPendingText (st: Statements, limit: number): number {
  st.run(`INSERT INTO objects_fts (rowid, title, description, body)
    SELECT id, title, description, body FROM objects WHERE id IN (${PENDING_BATCH})`, { limit })
  return st.run(`DELETE FROM text_pending WHERE id IN (${PENDING_BATCH})`, { limit }).changes
}

export interface TextIndexer {
  /** Indexes what is pending `TEXT_INDEX_DELAY_MS` from now (once, however often it is called meanwhile). */
  schedule (): void
  /** Indexes everything pending now, and cancels what was scheduled. */
  flush (): Promise<void>
}

/**
 * Indexes pending texts (text-index.sqlite.ts) in transactions of their own on the store's connection.
 * The pending ids are written with each change, so nothing is lost when a batch fails or the process
 * stops first: the failure is reported and the next write, or the next start, schedules them again.
 */
export function textIndexer (st: Statements, transactions: Transactions, onError: (err: unknown) => void): TextIndexer {
  let timer: NodeJS.Timeout | null = null
  const pending = () => st.one('SELECT 1 FROM text_pending LIMIT 1') !== undefined
  const batch = () => transactions.unseen(() => indexPendingText(st, TEXT_INDEX_BATCH))
  const run = () => {
    timer = null
    // a timer's callback must not throw: whatever fails is reported, and the next write schedules again
    new Promise<boolean>((resolve) => { resolve(pending()) })
      .then((any) => (any ? batch() : 0))
      .then((n) => { if (n === TEXT_INDEX_BATCH) schedule() }, onError)
  }
  const schedule = () => { timer ??= setTimeout(run, TEXT_INDEX_DELAY_MS).unref() }
  return {
    schedule,
    async flush () {
      if (timer !== null) clearTimeout(timer)
      timer = null
      while (pending()) await batch()
    },
  }
}
