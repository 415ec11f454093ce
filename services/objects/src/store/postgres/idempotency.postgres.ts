import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import type { WriteOutcome } from '../../core/idempotency.js'
import type { IdempotencyRows } from '../../core/ports.js'
import type { OutcomeRow } from '../../core/write-steps.js'
import type { Db } from './db.postgres.js'
import type { Transactions } from './transactions.postgres.js'

/** Stores a guarded write's key row, replacing one created at or before `replacesUpTo`; a live row refuses the write. */
export async function keepOutcome (db: Db, row: OutcomeRow, replacesUpTo: number): Promise<void> {
  const changed = await db.run(`INSERT INTO idempotency (user_id, key, request_hash, outcome, response, created_at)
    VALUES (@user_id, @key, @request_hash, @outcome, NULL, @created_at)
    ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash, outcome = excluded.outcome,
      response = NULL, created_at = excluded.created_at
    WHERE idempotency.created_at <= @replaces`, { ...row, outcome: JSON.stringify(row.outcome), replaces: replacesUpTo })
  if (changed === 0) throw new IdempotencyKeyTaken()
}

export function idempotencyRows (db: Db, tx: Transactions): IdempotencyRows {
  return {
    get: async (userId, key, createdAfter) => {
      const row = await db.one<{ request_hash: string, outcome: string, response: string | null, created_at: number }>(
        'SELECT request_hash, outcome, response, created_at FROM idempotency WHERE user_id = @userId AND key = @key AND created_at > @after',
        { userId, key, after: createdAfter })
      return row === undefined ? null : { ...row, outcome: JSON.parse(row.outcome) as WriteOutcome }
    },
    respond: (claim, response) => tx.unseen(async (t) => {
      await t.run('UPDATE idempotency SET response = @response WHERE user_id = @user_id AND key = @key AND request_hash = @request_hash',
        { user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash, response })
    }),
    prune: (createdUpTo) => tx.unseen((t) => t.run('DELETE FROM idempotency WHERE created_at <= @upTo', { upTo: createdUpTo })),
  }
}
