import { present } from '@content/platform'
import type { Postgres } from '@content/platform/postgres'
import type { ApiKeyRecord, ApiKeysPort } from '../api-keys.store.js'
import { FOREIGN_KEY_VIOLATION, sqlState } from './schema.postgres.js'

interface ApiKeyRow {
  id: string
  name: string
  secret_hash: string
  user_id: number
  groups: string[]
  created: number
  expires_at: number | null
  last_used: number | null
}

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id, name: row.name, groups: row.groups, userId: row.user_id, created: row.created,
  expiresAt: row.expires_at, lastUsed: row.last_used, secretHash: row.secret_hash,
})

/** API keys in the `auth` schema of PostgreSQL; a user's keys go with the user (ON DELETE CASCADE). */
export function apiKeysPort (db: Postgres): ApiKeysPort {
  return {
    async create (key) {
      try {
        const { rows } = await db.query<ApiKeyRow>(`INSERT INTO auth.api_keys (id, name, secret_hash, user_id, groups, created, expires_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [key.id, key.name, key.secretHash, key.userId, key.groups, key.created, key.expiresAt])
        return toApiKey(present(rows[0], 'the key just created'))
      } catch (err) {
        if (sqlState(err) === FOREIGN_KEY_VIOLATION) return 'unknown_user'
        throw err
      }
    },
    async get (id) {
      const { rows } = await db.query<ApiKeyRow>('SELECT * FROM auth.api_keys WHERE id = $1', [id])
      return rows[0] ? toApiKey(rows[0]) : null
    },
    async list () { return (await db.query<ApiKeyRow>('SELECT * FROM auth.api_keys ORDER BY created DESC, id COLLATE "C"')).rows.map(toApiKey) },
    async remove (id) { return (await db.query('DELETE FROM auth.api_keys WHERE id = $1', [id])).rowCount === 1 },
    async touch (id, at) { await db.query('UPDATE auth.api_keys SET last_used = $2 WHERE id = $1', [id, at]) },
  }
}
