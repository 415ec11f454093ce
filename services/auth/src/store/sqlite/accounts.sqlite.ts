import { ImportConflictError, type AccountsStore } from '../accounts.store.js'
import type { GroupRecord } from '../groups.store.js'
import type { NewUser } from '../users.store.js'
import { apiKeysPort } from './api-keys.sqlite.js'
import type { SqliteDb } from './database.js'
import { groupsPort } from './groups.sqlite.js'
import { isForeignKeyViolation, isUniqueViolation, userInserter, usersPort } from './users.sqlite.js'

/** Accounts in the auth service's SQLite file (migrated by openAuthDatabase), one factory per port. */
export function createSqliteAccountsStore (db: SqliteDb, now: () => number = Date.now): AccountsStore {
  const insertGroupIfNew = db.prepare('INSERT OR IGNORE INTO groups (name, backend_auth) VALUES (?, ?)')
  const insertUser = userInserter(db, now)
  const importAll = db.transaction((groups: GroupRecord[], users: NewUser[]) => {
    for (const g of groups) insertGroupIfNew.run(g.name, g.backendAuth ? 1 : 0)
    const ids = new Map<string, number>()
    for (const u of users) ids.set(u.username, insertUser(u))
    return ids
  })
  return {
    users: usersPort(db, now),
    groups: groupsPort(db),
    apiKeys: apiKeysPort(db),
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
