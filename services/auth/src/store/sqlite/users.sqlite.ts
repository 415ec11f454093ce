import { present } from '@content/platform'
import { sortedGroups, type CreateRefusal, type NewUser, type UserRecord, type UsersPort } from '../users.store.js'
import type { SqliteDb } from './database.js'

interface UserRow {
  id: number
  username: string
  password_hash: string
  name: string
  email: string
  created: number
  card_id: number | null
  disabled: number
  sessions_since: number
  groups: string | null
}

const SELECT_USER = `SELECT u.*, (SELECT json_group_array(group_name) FROM
  (SELECT group_name FROM user_groups WHERE user_id = u.id ORDER BY group_name)) AS groups FROM users u`

function toUser (row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    email: row.email,
    groups: row.groups ? JSON.parse(row.groups) as string[] : [],
    created: row.created,
    cardId: row.card_id,
    disabled: row.disabled === 1,
    passwordHash: row.password_hash,
    sessionsSince: row.sessions_since,
  }
}

export const isUniqueViolation = (err: unknown) =>
  (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
export const isForeignKeyViolation = (err: unknown) => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY'

/** Inserts a user and its memberships (inside the caller's transaction); answers its id. */
export function userInserter (db: SqliteDb, now: () => number): (user: NewUser) => number {
  const insertUser = db.prepare(`INSERT INTO users (username, password_hash, name, email, created, card_id, disabled)
    VALUES (@username, @passwordHash, @name, @email, @created, @cardId, @disabled)`)
  const insertMember = db.prepare('INSERT INTO user_groups (user_id, group_name) VALUES (?, ?)')
  return (user) => {
    const info = insertUser.run({
      username: user.username, passwordHash: user.passwordHash, name: user.name, email: user.email,
      created: now(), cardId: user.cardId, disabled: user.disabled ? 1 : 0,
    })
    const id = Number(info.lastInsertRowid)
    for (const group of sortedGroups(user.groups)) insertMember.run(id, group)
    return id
  }
}

/** Users in the auth service's SQLite file. Calls are synchronous underneath. */
export function usersPort (db: SqliteDb, now: () => number): UsersPort {
  const stmt = {
    userById: db.prepare<[number], UserRow>(`${SELECT_USER} WHERE u.id = ?`),
    userByName: db.prepare<[string], UserRow>(`${SELECT_USER} WHERE u.username = ?`),
    usernameExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM users WHERE username = ?'),
    setDisabled: db.prepare('UPDATE users SET disabled = @disabled, sessions_since = CASE WHEN @disabled = 1 THEN @now ELSE sessions_since END WHERE id = @id'),
    setPassword: db.prepare('UPDATE users SET password_hash = ?, sessions_since = ? WHERE id = ?'),
    removeUser: db.prepare('DELETE FROM users WHERE id = ?'),
    listUsers: db.prepare<[], UserRow>(`${SELECT_USER} ORDER BY u.id`),
    countUsers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users'),
  }
  const createUser = db.transaction(userInserter(db, now))
  const getUser = (id: number) => {
    const row = stmt.userById.get(id)
    return row ? toUser(row) : null
  }
  return {
    async create (user): Promise<UserRecord | CreateRefusal> {
      try {
        return present(getUser(createUser(user)), 'the user just created')
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken'
        if (isForeignKeyViolation(err)) return 'unknown_groups'
        throw err
      }
    },
    async get (id) { return getUser(id) },
    async findByUsername (username) {
      const row = stmt.userByName.get(username)
      return row ? toUser(row) : null
    },
    async existing (usernames) { return usernames.filter((u) => stmt.usernameExists.get(u) !== undefined) },
    async setDisabled (id, disabled, at) { return stmt.setDisabled.run({ disabled: disabled ? 1 : 0, now: at, id }).changes === 1 },
    async setPassword (id, passwordHash, at) { return stmt.setPassword.run(passwordHash, at, id).changes === 1 },
    async remove (id) { return stmt.removeUser.run(id).changes === 1 },
    async list () { return stmt.listUsers.all().map(toUser) },
    async count () { return present(stmt.countUsers.get(), 'the COUNT row').n },
  }
}
