import { describe } from 'vitest'
import { migrateMongo } from '@content/platform/migrations'
import { createMongoAccountsStore } from '../../src/store/mongo/accounts.mongo.js'
import { AUTH_MONGO_MIGRATIONS, earlierMongoRelease } from '../../src/store/mongo/schema.mongo.js'
import { createPostgresAccountsStore } from '../../src/store/postgres/accounts.postgres.js'
import { createSqliteAccountsStore } from '../../src/store/sqlite/accounts.sqlite.js'
import { openAuthDatabase } from '../../src/store/sqlite/database.js'
import { describeAccountsStoreContract } from '../contract/accounts.contract.js'
import { MONGODB_URL, MONGO_SKIP_TITLE, tempMongoDb } from '../helpers/mongo.js'
import { tempPostgres } from '../helpers/postgres.js'
import { tempDir } from '../helpers/temp.js'

describeAccountsStoreContract('sqlite', async () => {
  const dir = tempDir()
  const db = openAuthDatabase(dir.path)
  return { store: createSqliteAccountsStore(db), dispose: async () => { db.close(); dir.remove() } }
})

describeAccountsStoreContract('postgres', async () => {
  const pg = await tempPostgres()
  return { store: createPostgresAccountsStore(pg.db), dispose: pg.drop }
})

describe.skipIf(!MONGODB_URL)(`mongodb ${MONGODB_URL ? '' : MONGO_SKIP_TITLE}`, () => {
  describeAccountsStoreContract('mongodb', async () => {
    const mongo = await tempMongoDb()
    await migrateMongo(mongo.db, { store: 'auth', migrations: AUTH_MONGO_MIGRATIONS, mode: 'migrate', earlierRelease: earlierMongoRelease })
    return { store: createMongoAccountsStore(mongo.client, mongo.db), dispose: mongo.drop }
  })
})
