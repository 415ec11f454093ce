import type { Postgres } from '@content/platform/postgres'
import { ImportConflictError, type AccountsStore } from '../accounts.store.js'
import { apiKeysPort } from './api-keys.postgres.js'
import { groupsPort } from './groups.postgres.js'
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, sqlState } from './schema.postgres.js'
import { insertUser, usersPort } from './users.postgres.js'

/** Accounts in the `auth` schema of PostgreSQL (migrated by AUTH_POSTGRES_MIGRATIONS), one factory per port. */
export function createPostgresAccountsStore (db: Postgres, now: () => number = Date.now): AccountsStore {
  return {
    users: usersPort(db, now),
    groups: groupsPort(db),
    apiKeys: apiKeysPort(db),
    async importAccounts (groups, users) {
      try {
        return await db.transaction(async (tx) => {
          for (const g of groups) {
            await tx.query('INSERT INTO auth.groups (name, backend_auth) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [g.name, g.backendAuth])
          }
          const ids = new Map<string, number>()
          for (const u of users) ids.set(u.username, await insertUser(tx, u, now()))
          return ids
        })
      } catch (err) {
        if (sqlState(err) === UNIQUE_VIOLATION || sqlState(err) === FOREIGN_KEY_VIOLATION) throw new ImportConflictError('accounts changed during the import')
        throw err
      }
    },
    async close () { /* the pool is the process's; its owner closes it */ },
  }
}
