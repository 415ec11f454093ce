import { describe } from 'vitest'
import { createSqliteAccountsStore } from '../../src/store/sqlite/accounts.sqlite.js'
import { openAuthDatabase } from '../../src/store/sqlite/database.js'
import { createMongoAccountsStore } from '../../src/store/mongo/accounts.mongo.js'
import { describeAccountsStoreContract } from '../contract/accounts.contract.js'
import { MONGODB_URL, MONGO_SKIP_TITLE, tempMongoDb } from '../helpers/mongo.js'
import { tempDir } from '../helpers/temp.js'

describeAccountsStoreContract('sqlite', async () => {
  const dir = tempDir()
  const db = openAuthDatabase(dir.path)
  return { store: createSqliteAccountsStore(db), dispose: async () => { db.close(); dir.remove() } }
})

describe.skipIf(!MONGODB_URL)(`mongodb ${MONGODB_URL ? '' : MONGO_SKIP_TITLE}`, () => {
  describeAccountsStoreContract('mongodb', async () => {
    const mongo = await tempMongoDb()
    return { store: await createMongoAccountsStore(mongo.client, mongo.db), dispose: mongo.drop }
  })
})
