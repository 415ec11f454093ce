import type { NewRefreshToken, TokensStore } from '../tokens.store.js'
import { tokenRecord, type TokenRow } from '../token-rows.js'
import type { SqliteDb } from './database.js'

/** Expired rows are swept a batch at a time whenever a token is issued. */
const SWEEP_BATCH = 200

/** Refresh-token state in the auth service's SQLite file (migrated by openAuthDatabase): the embedded default. */
export function createSqliteTokensStore (db: SqliteDb): TokensStore {
  const stmt = {
    insert: db.prepare(`INSERT INTO refresh_tokens (hash, user_id, family_id, expires_at, status)
      VALUES (@hash, @userId, @familyId, @expiresAt, 'active')`),
    find: db.prepare<[string, number], TokenRow>('SELECT * FROM refresh_tokens WHERE hash = ? AND expires_at > ?'),
    familyRevoked: db.prepare<[string, number], { one: number }>('SELECT 1 AS one FROM revoked_families WHERE family_id = ? AND expires_at > ?'),
    retire: db.prepare(`UPDATE refresh_tokens SET status = 'rotated', rotated_at = ?, successor = ?
      WHERE hash = ? AND status = 'active'`),
    extend: db.prepare("UPDATE refresh_tokens SET expires_at = ? WHERE hash = ? AND status = 'active'"),
    revoke: db.prepare(`INSERT INTO revoked_families (family_id, expires_at) VALUES (?, ?)
      ON CONFLICT (family_id) DO UPDATE SET expires_at = excluded.expires_at WHERE revoked_families.expires_at <= ?`),
    sweepTokens: db.prepare(`DELETE FROM refresh_tokens WHERE hash IN
      (SELECT hash FROM refresh_tokens WHERE expires_at <= ? LIMIT ${SWEEP_BATCH})`),
    sweepFamilies: db.prepare(`DELETE FROM revoked_families WHERE family_id IN
      (SELECT family_id FROM revoked_families WHERE expires_at <= ? LIMIT ${SWEEP_BATCH})`),
  }
  const issue = db.transaction((token: NewRefreshToken, now: number) => {
    stmt.sweepTokens.run(now)
    stmt.sweepFamilies.run(now)
    stmt.insert.run(token)
  })
  const rotate = db.transaction((hash: string, successor: NewRefreshToken, sealed: string, now: number) => {
    if (stmt.retire.run(now, sealed, hash).changes !== 1) return false
    stmt.insert.run(successor)
    return true
  })

  return {
    async issue (token) { issue(token, Date.now()) },
    async find (hash, now) {
      const row = stmt.find.get(hash, now)
      if (!row) return null
      return { token: tokenRecord(row), familyRevoked: stmt.familyRevoked.get(row.family_id, now) !== undefined }
    },
    async rotate (hash, successor, sealed, now) { return rotate(hash, successor, sealed, now) },
    async extend (hash, expiresAt) { return stmt.extend.run(expiresAt, hash).changes === 1 },
    async revokeFamily (familyId, until) { return stmt.revoke.run(familyId, until, Date.now()).changes === 1 },
    async familyRevoked (familyId, now) { return stmt.familyRevoked.get(familyId, now) !== undefined },
    async close () { /* the database belongs to the process; it closes it */ },
  }
}
