import { MongoClient } from 'mongodb'
import { afterEach, describe, expect, it } from 'vitest'
import { openMongoStore } from '../../src/store/mongo/mongo.store.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { describeDraftsContract } from './drafts.contract.js'
import { describeOutboxContract } from './outbox.contract.js'
import { describeSelectContract } from './select.contract.js'
import { describeObjectsStoreContract, draft } from './store.contract.js'
import { describeRevisionsContract } from './revisions.contract.js'
import { describeScheduleContract } from './schedule.contract.js'
import { describeTrashContract } from './trash.contract.js'
import { PIC_FILE, keyOf } from './site.fixture.js'
import { must } from '../support/must.js'

// No MongoDB server exists on the build machines; these run wherever MONGODB_URL names a replica set
// (transactions and change streams need one; a single node started with --replSet will do).
const url = process.env.MONGODB_URL
const freshDb = () => `objects_contract_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
const open = (db: string, revisionsKeep: number | null = null) => openMongoStore(new MongoClient(must(url)), db, { publicationNickname: 'publication', revisionsKeep })

async function dropDatabase (db: string): Promise<void> {
  const client = new MongoClient(must(url))
  try {
    await client.db(db).dropDatabase()
  } finally {
    await client.close()
  }
}

async function until (check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe.skipIf(!url)(`ObjectsStore on MongoDB${url ? '' : ' (skipped: MONGODB_URL not set)'}`, () => {
  describeObjectsStoreContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeSelectContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeOutboxContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeScheduleContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeTrashContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeDraftsContract('mongodb', async () => {
    const db = freshDb()
    const store = await open(db)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describeRevisionsContract('mongodb', async (keep) => {
    const db = freshDb()
    const store = await open(db, keep)
    return { store, cleanup: async () => { await store.close(); await dropDatabase(db) } }
  })

  describe('MongoDB only', () => {
    const db = freshDb()
    const opened: ObjectsStore[] = []
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close()
      await dropDatabase(db)
    })

    it('when another replica commits a write, then this store hears it once, and the writer hears its own write once', async () => {
      const [writer, reader] = [await open(db), await open(db)]
      opened.push(writer, reader)
      let heardByWriter = 0
      let heardByReader = 0
      writer.onChange(() => { heardByWriter++ })
      reader.onChange(() => { heardByReader++ })
      await new Promise((resolve) => setTimeout(resolve, 500)) // both change streams are open
      // one transaction touching several documents (the id counter, the object, the tree edge)
      const id = await writer.objects.create({ ...draft('document', 'D'), links: { parents: [1], relations: [] } }, 1)
      await until(() => heardByReader >= 1)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(heardByReader).toBe(1)
      expect(heardByWriter).toBe(1)
      expect(await reader.tree.parents(id)).toEqual([1])
    })

    it('when another replica adds an upload or another service writes its own collections, then this store hears nothing of it', async () => {
      const [writer, reader] = [await open(db), await open(db)]
      opened.push(writer, reader)
      let heard = 0
      reader.onChange(() => { heard++ })
      await new Promise((resolve) => setTimeout(resolve, 500)) // the change stream is open
      await writer.uploads.add({ token_hash: keyOf('t'), user_id: 7, object_type: 'image', file: PIC_FILE, expires_at: Date.now() + 60_000 }, Date.now())
      const client = new MongoClient(must(url))
      try {
        await client.db(db).collection('media_originals.files').insertOne({ filename: PIC_FILE.key, length: PIC_FILE.size })
      } finally {
        await client.close()
      }
      await new Promise((resolve) => setTimeout(resolve, 800))
      expect(heard).toBe(0)
      await writer.objects.create(draft('document', 'D'), 1)
      await until(() => heard >= 1)
    })

    it('when the store is opened again, then the publication is kept and ids continue the sequence', async () => {
      const first = await open(db)
      opened.push(first)
      const a = await first.objects.create(draft('document', 'A'), 1)
      const second = await open(db)
      opened.push(second)
      expect(await second.objects.get({ id: 1 })).toMatchObject({ nickname: 'publication' })
      expect(await second.objects.create(draft('document', 'B'), 1)).toBe(a + 1)
    })
  })
})
