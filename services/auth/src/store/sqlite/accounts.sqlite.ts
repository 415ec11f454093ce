import {
  ImportConflictError, sortedGroups,
  type AccountsStore, type CreateRefusal, type GroupRecord, type NewUser, type UserRecord,
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
`

interface UserRow {
  id: number
  username: string
  password_hash: string
  name: string
  email: string
  created: number
  card_id: number | null
  disabled: number
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
  }
}

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
const isForeignKeyViolation = (err: unknown) => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY'

/** Users and groups in the auth service's SQLite file. Calls are synchronous underneath. */
export function createSqliteAccountsStore (db: SqliteDb, now: () => number = Date.now): AccountsStore {
  db.exec(SCHEMA)
  const stmt = {
    insertUser: db.prepare(`INSERT INTO users (username, password_hash, name, email, created, card_id, disabled)
      VALUES (@username, @passwordHash, @name, @email, @created, @cardId, @disabled)`),
    insertMember: db.prepare('INSERT INTO user_groups (user_id, group_name) VALUES (?, ?)'),
    userById: db.prepare<[number], UserRow>(`${SELECT_USER} WHERE u.id = ?`),
    userByName: db.prepare<[string], UserRow>(`${SELECT_USER} WHERE u.username = ?`),
    usernameExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM users WHERE username = ?'),
    setDisabled: db.prepare('UPDATE users SET disabled = ? WHERE id = ?'),
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
          return getUser(createUser(user))!
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
      async setDisabled (id, disabled) { return stmt.setDisabled.run(disabled ? 1 : 0, id).changes === 1 },
      async count () { return stmt.countUsers.get()!.n },
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
