import type { Db, MongoClient } from 'mongodb'
import { ImportConflictError, type AccountsStore } from '../accounts.store.js'
import { sortedGroups } from '../users.store.js'
import { apiKeysPort } from './api-keys.mongo.js'
import { groupsPort } from './groups.mongo.js'
import { DURABLE, collectionsOf, isDuplicate } from './schema.mongo.js'
import { insertUser, missingGroups, usersPort } from './users.mongo.js'

/**
 * Users and groups in MongoDB (migrated by AUTH_MONGO_MIGRATIONS), one factory per port. Imports run in a
 * transaction, which needs a replica set (a single-node one will do).
 */
export function createMongoAccountsStore (client: MongoClient, db: Db, now: () => number = Date.now): AccountsStore {
  const c = collectionsOf(db)
  return {
    users: usersPort(client, c, now),
    groups: groupsPort(c),
    apiKeys: apiKeysPort(c),
    async importAccounts (newGroups, newUsers) {
      const session = client.startSession()
      try {
        const ids = new Map<string, number>()
        await session.withTransaction(async () => {
          ids.clear()
          for (const g of newGroups) {
            await c.groups.updateOne({ name: g.name }, { $setOnInsert: { backend_auth: g.backendAuth } }, { upsert: true, session })
          }
          const needed = sortedGroups(newUsers.flatMap((u) => u.groups))
          if ((await missingGroups(c, needed, session)).length > 0) throw new ImportConflictError('a group vanished during the import')
          for (const u of newUsers) ids.set(u.username, (await insertUser(c, u, now(), session))._id)
        }, { ...DURABLE, readConcern: { level: 'snapshot' } })
        return ids
      } catch (err) {
        if (isDuplicate(err)) throw new ImportConflictError('accounts changed during the import')
        throw err
      } finally {
        await session.endSession()
      }
    },
    async close () { /* the client is shared; its owner closes it */ },
  }
}
