import type { Postgres } from '@content/platform/postgres'
import type { TokensStore } from '../tokens.store.js'
import { tokenRecord, type TokenRow } from '../token-rows.js'

/** Expired rows are swept a batch at a time whenever a token is issued; rows another replica sweeps are skipped. */
const SWEEP_BATCH = 200
const INSERT = `INSERT INTO auth.refresh_tokens (hash, user_id, family_id, expires_at, status) VALUES ($1, $2, $3, $4, 'active')`

/**
 * Refresh-token state in the `auth` schema of PostgreSQL, for deployments on PostgreSQL without Redis.
 * A database that cannot answer fails refresh and revoke closed (503).
 */
export function createPostgresTokensStore (db: Postgres): TokensStore {
  return {
    async issue (token) {
      const now = Date.now()
      await db.transaction(async (tx) => {
        await tx.query(`DELETE FROM auth.refresh_tokens WHERE hash IN (SELECT hash FROM auth.refresh_tokens
          WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`, [now])
        await tx.query(`DELETE FROM auth.revoked_families WHERE family_id IN (SELECT family_id FROM auth.revoked_families
          WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`, [now])
        await tx.query(INSERT, [token.hash, token.userId, token.familyId, token.expiresAt])
      })
    },
    async find (hash, now) {
      const { rows } = await db.query<TokenRow & { family_revoked: boolean }>(`SELECT t.*, EXISTS (SELECT 1 FROM auth.revoked_families f
        WHERE f.family_id = t.family_id AND f.expires_at > $2) AS family_revoked FROM auth.refresh_tokens t WHERE t.hash = $1 AND t.expires_at > $2`, [hash, now])
      const row = rows[0]
      return row ? { token: tokenRecord(row), familyRevoked: row.family_revoked } : null
    },
    rotate (hash, successor, sealed, now) {
      return db.transaction(async (tx) => {
        const retired = await tx.query(`UPDATE auth.refresh_tokens SET status = 'rotated', rotated_at = $2, successor = $3
          WHERE hash = $1 AND status = 'active'`, [hash, now, sealed])
        if (retired.rowCount !== 1) return false
        await tx.query(INSERT, [successor.hash, successor.userId, successor.familyId, successor.expiresAt])
        return true
      })
    },
    async extend (hash, expiresAt) {
      return (await db.query("UPDATE auth.refresh_tokens SET expires_at = $2 WHERE hash = $1 AND status = 'active'", [hash, expiresAt])).rowCount === 1
    },
    async revokeFamily (familyId, until) {
      const { rowCount } = await db.query(`INSERT INTO auth.revoked_families (family_id, expires_at) VALUES ($1, $2)
        ON CONFLICT (family_id) DO UPDATE SET expires_at = excluded.expires_at WHERE auth.revoked_families.expires_at <= $3`, [familyId, until, Date.now()])
      return rowCount === 1
    },
    async familyRevoked (familyId, now) {
      return (await db.query('SELECT 1 FROM auth.revoked_families WHERE family_id = $1 AND expires_at > $2', [familyId, now])).rowCount === 1
    },
    async close () { /* the pool is the process's; its owner closes it */ },
  }
}
