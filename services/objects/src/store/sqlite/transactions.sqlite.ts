import type { ChangeDraft } from '../../core/change-events.js'

/** Appends changes to the write's outbox, in order (inside its transaction). */
export type RecordChanges = (drafts: readonly ChangeDraft[]) => void

/**
 * A write's statements, run inside its transaction: `record` appends its change events, stamped `at`; a
 * write that appends its events itself (a fixtures plan) is given their time and answers the last number.
 */
export type WriteFn<T> = (record: RecordChanges, at: number, appended: (seq: number) => void) => T

/** How the ports of one connection write (commits.sqlite.ts runs them). */
export interface Transactions {
  /** Runs `fn` in a transaction, its change events with it, and tells listeners after it commits. */
  write<T>(fn: WriteFn<T>): Promise<T>
  /** A transaction no read would show (pending uploads, webhooks): listeners are not told. */
  unseen<T>(fn: () => T): Promise<T>
}

/** The answer of a statement run at once, or its error, as the promise every port method answers. */
export function answer<T> (fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn())
  } catch (err) {
    return Promise.reject(err)
  }
}
