import { present } from '@content/platform'
import {
  ImportConflictError, sortedGroups,
  type AccountsStore, type ApiKeyRecord, type CreateRefusal, type GroupRecord, type NewUser, type UserRecord,
} from '../accounts.store.js'
import type { SqliteDb } from './database.js'

const SCHEMA = `
CREATE TABLE IF NOT EXISTS groups (
  name TEXT PRIMARY KEY,
  backend_auth INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  card_id INTEGER,
  disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS user_groups (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_name TEXT NOT NULL REFERENCES groups(name),
  PRIMARY KEY (user_id, group_name)
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  groups TEXT NOT NULL,      -- JSON array of group names
  created INTEGER NOT NULL,
  expires_at INTEGER,
  last_used INTEGER
);
`

/** Columns added after the first release: a file made before gets them on open. */
const ADDED_COLUMNS: { table: string, column: string, definition: string }[] = [
  { table: 'users', column: 'sessions_since', definition: 'INTEGER NOT NULL DEFAULT 0' },
]

function addMissingColumns (db: SqliteDb): void {
  for (const { table, column, definition } of ADDED_COLUMNS) {
    const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((c) => c.name)
    if (!columns.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`)
  }
}

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

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
const isForeignKeyViolation = (err: unknown) => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY'

/** Users and groups in the auth service's SQLite file. Calls are synchronous underneath. */
export function createSqliteAccountsStore (db: SqliteDb, now: () => number = Date.now): AccountsStore {
  db.exec(SCHEMA)
  addMissingColumns(db)
  const stmt = {
    insertUser: db.prepare(`INSERT INTO users (username, password_hash, name, email, created, card_id, disabled)
      VALUES (@username, @passwordHash, @name, @email, @created, @cardId, @disabled)`),
    insertMember: db.prepare('INSERT INTO user_groups (user_id, group_name) VALUES (?, ?)'),
    userById: db.prepare<[number], UserRow>(`${SELECT_USER} WHERE u.id = ?`),
    userByName: db.prepare<[string], UserRow>(`${SELECT_USER} WHERE u.username = ?`),
    usernameExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM users WHERE username = ?'),
    setDisabled: db.prepare('UPDATE users SET disabled = @disabled, sessions_since = CASE WHEN @disabled = 1 THEN @now ELSE sessions_since END WHERE id = @id'),
    setPassword: db.prepare('UPDATE users SET password_hash = ?, sessions_since = ? WHERE id = ?'),
    removeUser: db.prepare('DELETE FROM users WHERE id = ?'),
    listUsers: db.prepare<[], UserRow>(`${SELECT_USER} ORDER BY u.id`),
    insertKey: db.prepare(`INSERT INTO api_keys (id, name, secret_hash, user_id, groups, created, expires_at)
      VALUES (@id, @name, @secretHash, @userId, @groups, @created, @expiresAt)`),
    keyById: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    listKeys: db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created DESC, id'),
    removeKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
    touchKey: db.prepare('UPDATE api_keys SET last_used = ? WHERE id = ?'),
    countUsers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users'),
    insertGroup: db.prepare('INSERT INTO groups (name, backend_auth) VALUES (?, ?)'),
    insertGroupIfNew: db.prepare('INSERT OR IGNORE INTO groups (name, backend_auth) VALUES (?, ?)'),
    listGroups: db.prepare<[], { name: string, backend_auth: number }>('SELECT name, backend_auth FROM groups ORDER BY name'),
  }

  const insertUser = (user: NewUser): number => {
    const info = stmt.insertUser.run({
      username: user.username, passwordHash: user.passwordHash, name: user.name, email: user.email,
      created: now(), cardId: user.cardId, disabled: user.disabled ? 1 : 0,
    })
    const id = Number(info.lastInsertRowid)
    for (const group of sortedGroups(user.groups)) stmt.insertMember.run(id, group)
    return id
  }
  const createUser = db.transaction(insertUser)
  const importAll = db.transaction((groups: GroupRecord[], users: NewUser[]) => {
    for (const g of groups) stmt.insertGroupIfNew.run(g.name, g.backendAuth ? 1 : 0)
    const ids = new Map<string, number>()
    for (const u of users) ids.set(u.username, insertUser(u))
    return ids
  })
  const getUser = (id: number) => {
    const row = stmt.userById.get(id)
    return row ? toUser(row) : null
  }

  return {
    users: {
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
    },
    groups: {
      async create (group) {
        try {
          stmt.insertGroup.run(group.name, group.backendAuth ? 1 : 0)
          return { ...group }
        } catch (err) {
          if (isUniqueViolation(err)) return 'taken'
          throw err
        }
      },
      async list () { return stmt.listGroups.all().map((r) => ({ name: r.name, backendAuth: r.backend_auth === 1 })) },
    },
    apiKeys: {
      async create (key) {
        try {
          stmt.insertKey.run({ ...key, groups: JSON.stringify(key.groups) })
        } catch (err) {
          if (isForeignKeyViolation(err)) return 'unknown_user'
          throw err
        }
        return toApiKey(present(stmt.keyById.get(key.id), 'the key just created'))
      },
      async get (id) {
        const row = stmt.keyById.get(id)
        return row ? toApiKey(row) : null
      },
      async list () { return stmt.listKeys.all().map(toApiKey) },
      async remove (id) { return stmt.removeKey.run(id).changes === 1 },
      async touch (id, at) { stmt.touchKey.run(at, id) },
    },
    async importAccounts (groups, users) {
      try {
        return importAll(groups, users)
      } catch (err) {
        if (isUniqueViolation(err) || isForeignKeyViolation(err)) throw new ImportConflictError('accounts changed during the import')
        throw err
      }
    },
    async close () { /* the database is shared with the token store; its owner closes it */ },
  }
}
