import { present } from '@content/platform'
import type { Postgres, Queryable } from '@content/platform/postgres'
import { sortedGroups, type NewUser, type UserRecord, type UsersPort } from '../users.store.js'
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, sqlState } from './schema.postgres.js'

interface UserRow {
  id: number
  username: string
  password_hash: string
  name: string
  email: string
  created: number
  card_id: number | null
  disabled: boolean
  sessions_since: number
  groups: string[]
}

const SELECT_USER = `SELECT u.*, coalesce((SELECT array_agg(group_name ORDER BY group_name COLLATE "C") FROM auth.user_groups
  WHERE user_id = u.id), '{}') AS groups FROM auth.users u`

const toUser = (row: UserRow): UserRecord => ({
  id: row.id, username: row.username, name: row.name, email: row.email, groups: row.groups, created: row.created,
  cardId: row.card_id, disabled: row.disabled, passwordHash: row.password_hash, sessionsSince: row.sessions_since,
})

/** Inserts a user and its memberships on `q` (inside the caller's transaction); answers its id. */
export async function insertUser (q: Queryable, user: NewUser, now: number): Promise<number> {
  const { rows } = await q.query<{ id: number }>(`INSERT INTO auth.users (username, password_hash, name, email, created, card_id, disabled)
    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
  [user.username, user.passwordHash, user.name, user.email, now, user.cardId, user.disabled ?? false])
  const id = present(rows[0], 'the inserted user').id
  const groups = sortedGroups(user.groups)
  if (groups.length > 0) await q.query('INSERT INTO auth.user_groups (user_id, group_name) SELECT $1, unnest($2::text[])', [id, groups])
  return id
}

/** Users in the `auth` schema of PostgreSQL. */
export function usersPort (db: Postgres, now: () => number): UsersPort {
  const one = async (where: string, value: unknown) => {
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE ${where}`, [value])
    return rows[0] ? toUser(rows[0]) : null
  }
  return {
    async create (user) {
      try {
        const id = await db.transaction((tx) => insertUser(tx, user, now()))
        return present(await one('u.id = $1', id), 'the user just created')
      } catch (err) {
        if (sqlState(err) === UNIQUE_VIOLATION) return 'taken'
        if (sqlState(err) === FOREIGN_KEY_VIOLATION) return 'unknown_groups'
        throw err
      }
    },
    get: (id) => one('u.id = $1', id),
    findByUsername: (username) => one('u.username = $1', username),
    async existing (usernames) {
      const { rows } = await db.query<{ username: string }>('SELECT username FROM auth.users WHERE username = ANY($1::text[])', [usernames])
      const found = new Set(rows.map((r) => r.username))
      return usernames.filter((u) => found.has(u))
    },
    async setDisabled (id, disabled, at) {
      const { rowCount } = await db.query(`UPDATE auth.users SET disabled = $2,
        sessions_since = CASE WHEN $2 THEN $3 ELSE sessions_since END WHERE id = $1`, [id, disabled, at])
      return rowCount === 1
    },
    async setPassword (id, passwordHash, at) {
      return (await db.query('UPDATE auth.users SET password_hash = $2, sessions_since = $3 WHERE id = $1', [id, passwordHash, at])).rowCount === 1
    },
    async remove (id) { return (await db.query('DELETE FROM auth.users WHERE id = $1', [id])).rowCount === 1 },
    async list () { return (await db.query<UserRow>(`${SELECT_USER} ORDER BY u.id`)).rows.map(toUser) },
    async count () { return present((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.users')).rows[0], 'the count row').n },
  }
}
