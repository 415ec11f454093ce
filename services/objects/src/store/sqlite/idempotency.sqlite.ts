import type { IdempotencyClaim, IdempotencyRecord, WriteOutcome } from '../../core/idempotency.js'
import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import type { IdempotencyRows } from '../../core/ports.js'
import type { OutcomeRow } from '../../core/write-steps.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions } from './transactions.sqlite.js'

/**
 * Stores a guarded write's key with what it did, replacing a row of the key created at or before
 * `replacesUpTo`; a live row refuses the write. Call inside that write's transaction.
 */
export function keepOutcome (st: Statements, row: OutcomeRow, replacesUpTo: number): void {
  const { changes } = st.run(`INSERT INTO idempotency (user_id, key, request_hash, outcome, response, created_at)
    VALUES (@user_id, @key, @request_hash, @outcome, NULL, @created_at)
    ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash, outcome = excluded.outcome,
      response = NULL, created_at = excluded.created_at
    WHERE idempotency.created_at <= @replaces`, { ...row, outcome: JSON.stringify(row.outcome), replaces: replacesUpTo })
  if (changes === 0) throw new IdempotencyKeyTaken()
}

function getRecord (st: Statements, userId: number, key: string, createdAfter: number): IdempotencyRecord | null {
  const row = st.one<{ request_hash: string, outcome: string, response: string | null, created_at: number }>(
    'SELECT request_hash, outcome, response, created_at FROM idempotency WHERE user_id = @userId AND key = @key AND created_at > @after',
    { userId, key, after: createdAfter })
  return row === undefined ? null : { ...row, outcome: JSON.parse(row.outcome) as WriteOutcome }
}

function storeResponse (st: Statements, claim: IdempotencyClaim, response: string): void {
  st.run('UPDATE idempotency SET response = @response WHERE user_id = @user_id AND key = @key AND request_hash = @request_hash',
    { user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash, response })
}

function pruneRecords (st: Statements, createdUpTo: number): number {
  return st.run('DELETE FROM idempotency WHERE created_at <= @upTo', { upTo: createdUpTo }).changes
}

/** Reads, the stored answer and pruning; the key itself is kept by the write it guards (keepOutcome). */
export function idempotencyPort (st: Statements, tx: Transactions): IdempotencyRows {
  return {
    get: (userId, key, createdAfter) => answer(() => getRecord(st, userId, key, createdAfter)),
    respond: (claim, response) => tx.unseen(() => storeResponse(st, claim, response)),
    prune: (createdUpTo) => tx.unseen(() => pruneRecords(st, createdUpTo)),
  }
}
