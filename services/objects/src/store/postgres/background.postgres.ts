import { FOLD_COUNTS } from './kept-counts.postgres.js'
import type { Transactions } from './transactions.postgres.js'

/** How often the kept counts' deltas are folded into their rows (kept-counts.postgres.ts). */
export const FOLD_EVERY_MS = 1_000

export interface Folding {
  /** folds now (after a bulk import), or once more after the fold in progress */
  now(): Promise<void>
  stop(): Promise<void>
}

/** Folds the counts' deltas every `FOLD_EVERY_MS` and when asked; a failed fold is reported and the next tries again. */
export function foldCounts (tx: Transactions, onError: (err: unknown) => void): Folding {
  let running: Promise<void> = Promise.resolve()
  const fold = () => {
    running = running.then(() => tx.unseen(async (db) => { for (const sql of FOLD_COUNTS) await db.run(sql) })).catch(onError)
    return running
  }
  const timer = setInterval(() => { void fold() }, FOLD_EVERY_MS)
  timer.unref()
  return {
    now: fold,
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
