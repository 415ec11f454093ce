import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateMongo } from '../../src/migrations/mongo.js'
import type { Migration } from '../../src/migrations/plan.js'
import type { Db } from 'mongodb'

const url = process.env.MONGODB_URL

// No MongoDB server can be installed on the build machines: these run where MONGODB_URL names a replica set.
describe.skipIf(!url)('migrateMongo (needs MONGODB_URL: no MongoDB server here)', () => {
  let client: MongoClient
  let db: Db
  beforeAll(async () => {
    client = await MongoClient.connect(url ?? '')
    db = client.db(`content_migrations_${Date.now()}`)
  })
  afterAll(async () => {
    await db?.dropDatabase()
    await client?.close()
  })
  const indexes: Migration<Db>[] = [
    { version: 1, name: 'notes index', up: async (d) => { await d.collection('notes').createIndex({ text: 1 }, { name: 'text' }) } },
  ]
  const spec = (mode: 'migrate' | 'check', migrations = indexes) => ({
    store: 'notes', migrations, mode, earlierRelease: async (d: Db) => (await d.listCollections({ name: 'notes' }).toArray()).length > 0,
  })

  it('applies the indexes once, records the version, and refuses a newer database', async () => {
    expect(await migrateMongo(db, spec('migrate'))).toMatchObject({ from: 0, to: 1 })
    expect(await migrateMongo(db, spec('migrate'))).toMatchObject({ applied: [] })
    expect((await db.collection('notes').indexes()).map((i) => i.name)).toContain('text')
    await expect(migrateMongo(db, spec('check', []))).rejects.toThrow(/newer than this release knows/)
  })

  it('two runs at once: one migrates under the lock document, the other waits', async () => {
    let runs = 0
    const slow: Migration<Db>[] = [...indexes, { version: 2, name: 'slow', up: async () => { runs++; await new Promise((r) => setTimeout(r, 1_500)) } }]
    const reports = await Promise.all([migrateMongo(db, spec('migrate', slow)), migrateMongo(db, spec('migrate', slow))])
    expect(runs).toBe(1)
    expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 1])
  }, 30_000)
})
