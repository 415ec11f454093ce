import { expiredAt, type IdempotencyClaim, type IdempotencyRecord, type WriteOutcome } from '../../core/idempotency.js'
import type { IdempotencyPort } from '../../core/ports.js'
import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import { DUPLICATE_KEY, type Collections, type Tx } from './schema.mongo.js'

/**
 * Records a guarded write's key with what it did, or refuses the write while the key is live. Inside
 * that write's transaction: the upsert replaces an expired document of the key, and otherwise inserts,
 * which the unique (user_id, key) index refuses while a live one exists. A concurrent transaction
 * recording the same key conflicts; the driver retries the loser, which then meets the duplicate.
 */
export async function recordOutcome (tx: Tx, claim: IdempotencyClaim | undefined, outcome: WriteOutcome): Promise<void> {
  if (claim === undefined) return
  try {
    await tx.c.idempotency.updateOne(
      { user_id: claim.user_id, key: claim.key, created_at: { $lte: expiredAt(claim.at) } },
      { $set: { request_hash: claim.request_hash, outcome, response: null, created_at: claim.at } },
      { upsert: true, session: tx.session })
  } catch (err) {
    throw (err as { code?: unknown }).code === DUPLICATE_KEY ? new IdempotencyKeyTaken() : err
  }
}

/** Reads, the stored answer and pruning: single-document writes outside any transaction. */
export function idempotencyPort (c: Collections): IdempotencyPort {
  return {
    async get (userId, key, now): Promise<IdempotencyRecord | null> {
      const doc = await c.idempotency.findOne({ user_id: userId, key, created_at: { $gt: expiredAt(now) } })
      return doc === null ? null : { request_hash: doc.request_hash, outcome: doc.outcome, response: doc.response, created_at: doc.created_at }
    },
    async respond (claim, response) {
      await c.idempotency.updateOne({ user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash }, { $set: { response } })
    },
    async prune (now) {
      return (await c.idempotency.deleteMany({ created_at: { $lte: expiredAt(now) } })).deletedCount
    },
  }
}
