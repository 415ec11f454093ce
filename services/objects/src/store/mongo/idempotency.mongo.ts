import type { IdempotencyRecord } from '../../core/idempotency.js'
import type { IdempotencyRows } from '../../core/ports.js'
import type { OutcomeRow } from '../../core/write-steps.js'
import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import { DUPLICATE_KEY, type Collections, type Tx } from './schema.mongo.js'

/**
 * Stores a guarded write's key with what it did, inside that write's transaction: the upsert replaces a
 * document of the key created at or before `replacesUpTo`, and otherwise inserts, which the unique
 * (user_id, key) index refuses while a live one exists. A concurrent transaction keeping the same key
 * conflicts; the driver retries the loser, which then meets the duplicate.
 */
export async function keepOutcome (tx: Tx, row: OutcomeRow, replacesUpTo: number): Promise<void> {
  try {
    await tx.c.idempotency.updateOne(
      { user_id: row.user_id, key: row.key, created_at: { $lte: replacesUpTo } },
      { $set: { request_hash: row.request_hash, outcome: row.outcome, response: null, created_at: row.created_at } },
      { upsert: true, session: tx.session })
  } catch (err) {
    throw (err as { code?: unknown }).code === DUPLICATE_KEY ? new IdempotencyKeyTaken() : err
  }
}

/** Reads, the stored answer and pruning: single-document writes outside any transaction. */
export function idempotencyPort (c: Collections): IdempotencyRows {
  return {
    async get (userId, key, createdAfter): Promise<IdempotencyRecord | null> {
      const doc = await c.idempotency.findOne({ user_id: userId, key, created_at: { $gt: createdAfter } })
      return doc === null ? null : { request_hash: doc.request_hash, outcome: doc.outcome, response: doc.response, created_at: doc.created_at }
    },
    async respond (claim, response) {
      await c.idempotency.updateOne({ user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash }, { $set: { response } })
    },
    async prune (createdUpTo) {
      return (await c.idempotency.deleteMany({ created_at: { $lte: createdUpTo } })).deletedCount
    },
  }
}
