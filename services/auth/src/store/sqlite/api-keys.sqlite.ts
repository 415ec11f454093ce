import { present } from '@content/platform'
import type { ApiKeyRecord, ApiKeysPort } from '../api-keys.store.js'
import type { SqliteDb } from './database.js'
import { isForeignKeyViolation } from './users.sqlite.js'

interface ApiKeyRow {
  id: string
  name: string
  secret_hash: string
  user_id: number
  groups: string
  created: number
  expires_at: number | null
  last_used: number | null
}

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id, name: row.name, groups: JSON.parse(row.groups) as string[], userId: row.user_id, created: row.created,
  expiresAt: row.expires_at, lastUsed: row.last_used, secretHash: row.secret_hash,
})

/** API keys in the auth service's SQLite file; a user's keys go with the user (ON DELETE CASCADE). */
export function apiKeysPort (db: SqliteDb): ApiKeysPort {
  const stmt = {
    insert: db.prepare(`INSERT INTO api_keys (id, name, secret_hash, user_id, groups, created, expires_at)
      VALUES (@id, @name, @secretHash, @userId, @groups, @created, @expiresAt)`),
    byId: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    list: db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created DESC, id'),
    remove: db.prepare('DELETE FROM api_keys WHERE id = ?'),
    touch: db.prepare('UPDATE api_keys SET last_used = ? WHERE id = ?'),
  }
  return {
    async create (key) {
      try {
        stmt.insert.run({ ...key, groups: JSON.stringify(key.groups) })
      } catch (err) {
        if (isForeignKeyViolation(err)) return 'unknown_user'
        throw err
      }
      return toApiKey(present(stmt.byId.get(key.id), 'the key just created'))
    },
    async get (id) {
      const row = stmt.byId.get(id)
      return row ? toApiKey(row) : null
    },
    async list () { return stmt.list.all().map(toApiKey) },
    async remove (id) { return stmt.remove.run(id).changes === 1 },
    async touch (id, at) { stmt.touch.run(at, id) },
  }
}
