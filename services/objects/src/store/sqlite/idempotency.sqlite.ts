import { expiredAt, type IdempotencyClaim, type IdempotencyRecord, type WriteOutcome } from '../../core/idempotency.js'
import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import type { IdempotencyPort } from '../../core/ports.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions } from './transactions.sqlite.js'

/**
 * Records a guarded write's key with what it did, or refuses the write while the key is live. Call
 * inside that write's transaction. An expired row of the key is replaced, so an old key is free again
 * before the retention job has dropped it.
 */
export function recordOutcome (st: Statements, claim: IdempotencyClaim | undefined, outcome: WriteOutcome): void {
  if (claim === undefined) return
  const { changes } = st.run(`INSERT INTO idempotency (user_id, key, request_hash, outcome, response, created_at)
    VALUES (@user_id, @key, @request_hash, @outcome, NULL, @at)
    ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash, outcome = excluded.outcome,
      response = NULL, created_at = excluded.created_at
    WHERE idempotency.created_at <= @expired`, { ...claim, outcome: JSON.stringify(outcome), expired: expiredAt(claim.at) })
  if (changes === 0) throw new IdempotencyKeyTaken()
}

export function getRecord (st: Statements, userId: number, key: string, now: number): IdempotencyRecord | null {
  const row = st.one<{ request_hash: string, outcome: string, response: string | null, created_at: number }>(
    'SELECT request_hash, outcome, response, created_at FROM idempotency WHERE user_id = @userId AND key = @key AND created_at > @expired',
    { userId, key, expired: expiredAt(now) })
  return row === undefined ? null : { ...row, outcome: JSON.parse(row.outcome) as WriteOutcome }
}

export function storeResponse (st: Statements, claim: IdempotencyClaim, response: string): void {
  st.run('UPDATE idempotency SET response = @response WHERE user_id = @user_id AND key = @key AND request_hash = @request_hash',
    { user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash, response })
}

export function pruneRecords (st: Statements, now: number): number {
  return st.run('DELETE FROM idempotency WHERE created_at <= @expired', { expired: expiredAt(now) }).changes
}

/** Reads, the stored answer and pruning; the key itself is recorded by the write it guards (recordOutcome). */
export function idempotencyPort (st: Statements, tx: Transactions): IdempotencyPort {
  return {
    get: (userId, key, now) => answer(() => getRecord(st, userId, key, now)),
    respond: (claim, response) => tx.unseen(() => storeResponse(st, claim, response)),
    prune: (now) => tx.unseen(() => pruneRecords(st, now)),
  }
}
