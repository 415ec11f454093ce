import { IdempotencyKeyTaken } from '../../core/conflicts.js'
import { expiredAt, type IdempotencyClaim, type IdempotencyRecord, type WriteOutcome } from '../../core/idempotency.js'
import type { IdempotencyPort } from '../../core/ports.js'
import type { Db } from './db.postgres.js'
import type { Transactions } from './transactions.postgres.js'

/** Records a guarded write's key with what it did, or refuses the write while the key is live (idempotency.sqlite.ts). */
export async function recordOutcome (db: Db, claim: IdempotencyClaim | undefined, outcome: WriteOutcome): Promise<void> {
  if (claim === undefined) return
  const changed = await db.run(`INSERT INTO idempotency (user_id, key, request_hash, outcome, response, created_at)
    VALUES (@user_id, @key, @request_hash, @outcome, NULL, @at)
    ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash, outcome = excluded.outcome,
      response = NULL, created_at = excluded.created_at
    WHERE idempotency.created_at <= @expired`, { ...claim, outcome: JSON.stringify(outcome), expired: expiredAt(claim.at) })
  if (changed === 0) throw new IdempotencyKeyTaken()
}

export function idempotencyPort (db: Db, tx: Transactions): IdempotencyPort {
  return {
    get: async (userId, key, now) => {
      const row = await db.one<{ request_hash: string, outcome: string, response: string | null, created_at: number }>(
        'SELECT request_hash, outcome, response, created_at FROM idempotency WHERE user_id = @userId AND key = @key AND created_at > @expired',
        { userId, key, expired: expiredAt(now) })
      return row === undefined ? null : { ...row, outcome: JSON.parse(row.outcome) as WriteOutcome } satisfies IdempotencyRecord
    },
    respond: (claim, response) => tx.unseen(async (t) => {
      await t.run('UPDATE idempotency SET response = @response WHERE user_id = @user_id AND key = @key AND request_hash = @request_hash',
        { user_id: claim.user_id, key: claim.key, request_hash: claim.request_hash, response })
    }),
    prune: (now) => tx.unseen((t) => t.run('DELETE FROM idempotency WHERE created_at <= @expired', { expired: expiredAt(now) })),
  }
}
