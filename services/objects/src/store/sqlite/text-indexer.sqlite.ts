import { SEARCHED_FIELDS } from '../../core/text-search.js'
import type { Statements } from './rows.sqlite.js'
import type { Transactions } from './transactions.sqlite.js'
import { backgroundSteps, type BackgroundSteps } from './background-steps.sqlite.js'

/**
 * How long new text waits before it is indexed. At a thousand creates a second that is a batch of
 * about fifty, where the index's cost per create was least (text-index.sqlite.ts); searches meanwhile
 * check the pending texts themselves, a few dozen rows at most under such a load.
 */
export const TEXT_INDEX_DELAY_MS = 50
/** Texts indexed per transaction (a few ms of the thread for documents like the bench's); more wait for the next. */
export const TEXT_INDEX_BATCH = 250

/**
 * Past this many pending texts (a fixtures import's) they are indexed by a worker thread on a connection of
 * its own (`textCatchUp`), off the service's thread, in transactions of `CATCH_UP_BATCH`.
 */
export const CATCH_UP_AT = 2_000
/**
 * Texts per transaction of the worker: a fraction of a second of FTS5's work, the longest a write waits
 * on it (loadtest/README.md, "Bulk loading", has the worker's CPU per 100,000).
 */
export const CATCH_UP_BATCH = 5_000

const PENDING_BATCH = 'SELECT id FROM text_pending ORDER BY id LIMIT @limit'
/** Moves up to `@limit` pending texts (text-index.sqlite.ts), the oldest first, into the index. */
export const INDEX_PENDING: [index: string, unpend: string] = [
  `INSERT INTO objects_fts (rowid, ${SEARCHED_FIELDS.join(', ')})
    SELECT id, ${SEARCHED_FIELDS.join(', ')} FROM objects WHERE id IN (${PENDING_BATCH})`,
  `DELETE FROM text_pending WHERE id IN (${PENDING_BATCH})`,
]

/** Indexes up to `limit` pending texts inside the caller's transaction; answers how many. */
export function indexPendingText (st: Statements, limit: number): number {
  const [index, unpend] = INDEX_PENDING
  st.run(index, { limit })
  return st.run(unpend, { limit }).changes
}

/**
 * Indexes pending texts in the background until none is left (background-steps.sqlite.ts); none for an
 * in-memory store, which no other connection could open: its indexer takes every text itself.
 */
export function textCatchUp (file: string, onError: (err: unknown) => void, onEnd: () => void): BackgroundSteps | undefined {
  if (file === ':memory:') return undefined
  return backgroundSteps(file, { statements: INDEX_PENDING, params: { limit: CATCH_UP_BATCH }, doneAt: 0, pauseMs: 1 }, onError, onEnd)
}

export interface TextIndexer {
  /** Indexes what is pending `TEXT_INDEX_DELAY_MS` from now (once, however often it is called meanwhile). */
  schedule (): void
  /** Indexes everything pending now, and cancels what was scheduled. */
  flush (): Promise<void>
}

/**
 * Indexes pending texts (text-index.sqlite.ts) in transactions of their own on the store's connection,
 * or, past `CATCH_UP_AT` of them, has `catchUp` index them all (it schedules this again when it ends).
 * The pending ids are written with each change, so nothing is lost when a batch fails or the process
 * stops first: the failure is reported and the next write, or the next start, schedules them again.
 */
export function textIndexer (st: Statements, transactions: Transactions, onError: (err: unknown) => void, catchUp?: BackgroundSteps): TextIndexer {
  let timer: NodeJS.Timeout | null = null
  const pending = () => st.one('SELECT 1 FROM text_pending LIMIT 1') !== undefined
  const many = () => st.one('SELECT 1 FROM text_pending LIMIT 1 OFFSET @n', { n: CATCH_UP_AT }) !== undefined
  const batch = () => transactions.unseen(() => indexPendingText(st, TEXT_INDEX_BATCH))
  const run = () => {
    timer = null
    if (catchUp?.busy() === true) return
    // a timer's callback must not throw: whatever fails is reported, and the next write schedules again
    new Promise<boolean>((resolve) => { resolve(pending()) })
      .then((any) => {
        if (!any) return 0
        if (catchUp !== undefined && many()) {
          catchUp.start()
          return 0
        }
        return batch()
      })
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
