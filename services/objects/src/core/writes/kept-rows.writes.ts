import { expiredAt, type IdempotencyClaim, type WriteOutcome } from '../idempotency.js'
import { oldestKept, revisionDraft } from '../revisions.js'
import type { ObjectRecord } from '../types.js'
import type { Steps, Tx } from '../unit-of-work.js'

/**
 * The rows a write keeps besides what it changes: its revision and its idempotency key. Core decides
 * them; the store keeps them as it is told.
 */

/**
 * The revision of a write of object `id` (decisions §16), from its record before (null: created) and as
 * the transaction now has it; the oldest past REVISIONS_KEEP go. Answers that record as read (null when
 * revisions are off, and nothing was read).
 */
export function * keepRevision (tx: Tx, id: number, before: ObjectRecord | null, now: number, userId: number): Steps<ObjectRecord | null> {
  const keep = tx.settings.revisionsKeep
  if (keep === 0) return null
  const after = yield * tx.record(id)
  if (after === null) return null
  const draft = revisionDraft(before, after)
  if (draft === null) return after
  const revision = yield * tx.addRevision(id, { created: now, user_id: userId, changed: draft.changed, data: draft.data })
  if (keep !== null) yield * tx.dropRevisions(id, oldestKept(revision, keep))
  return after
}

/** The record before a write, when a revision will need it. */
export function * recordBefore (tx: Tx, id: number): Steps<ObjectRecord | null> {
  return tx.settings.revisionsKeep === 0 ? null : yield * tx.record(id)
}

/** A guarded write's key and what it did (an expired row of the key is replaced; a live one refuses the write). */
export function * keepOutcome (tx: Tx, claim: IdempotencyClaim | undefined, outcome: WriteOutcome): Steps<void> {
  if (claim === undefined) return
  yield * tx.keepOutcome({ user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash, outcome, created_at: claim.at }, expiredAt(claim.at))
}
