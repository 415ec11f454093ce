import { describe } from 'vitest'
import { openMongoStore } from '../../src/store/mongo/mongo.store.js'
import { describeObjectsStoreContract } from './store.contract.js'

// No MongoDB server exists on the build machines; the suite runs wherever MONGODB_URL names a replica set.
const url = process.env.MONGODB_URL
describe.skipIf(!url)(`ObjectsStore on MongoDB${url ? '' : ' (skipped: MONGODB_URL not set)'}`, () => {
  describeObjectsStoreContract('mongodb', async () => {
    const db = `objects_contract_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
    const store = await openMongoStore(url!, db, { publicationNickname: 'publication' })
    return { store, cleanup: () => store.close() }
  })
})
