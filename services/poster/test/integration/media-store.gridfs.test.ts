import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { describe } from 'vitest'
import { openGridfsStore } from '../../src/store/gridfs/gridfs.store.js'
import { migrateGridfs } from '../../src/store/gridfs/schema.gridfs.js'
import { describeMediaStoreContract } from './media-store.contract.js'
import { must } from '../support/must.js'

// No MongoDB server exists on the build machines; these run wherever MONGODB_URL names one.
const url = process.env.MONGODB_URL
const freshDb = () => `poster_contract_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`

async function dropDatabase (db: string): Promise<void> {
  const client = new MongoClient(must(url))
  try {
    await client.db(db).dropDatabase()
  } finally {
    await client.close()
  }
}

describe.skipIf(!url)(`MediaStore on GridFS${url ? '' : ' (skipped: MONGODB_URL not set)'}`, () => {
  describeMediaStoreContract('gridfs', async (options) => {
    const db = freshDb()
    const stagingDir = mkdtempSync(join(tmpdir(), 'media-gridfs-'))
    const client = new MongoClient(must(url))
    await migrateGridfs(client.db(db), 'migrate')
    const store = await openGridfsStore(client, db, { stagingDir, ...options })
    return {
      store,
      cleanup: async () => {
        await store.close()
        await dropDatabase(db)
        rmSync(stagingDir, { recursive: true, force: true })
      },
    }
  })
})
