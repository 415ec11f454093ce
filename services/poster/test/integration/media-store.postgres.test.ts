import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '@content/platform'
import { migratePostgres } from '@content/platform/migrations'
import { openPostgres, type Postgres } from '@content/platform/postgres'
import { createTestDatabase, type TestDatabase } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresOriginals } from '../../src/store/postgres/originals.postgres.js'
import { openPostgresMediaStore } from '../../src/store/postgres/postgres.store.js'
import { CHUNK_BYTES, POSTER_POSTGRES_MIGRATIONS, POSTER_SCHEMA } from '../../src/store/postgres/schema.postgres.js'
import type { OriginalsPort } from '../../src/store/media.store.js'
import { describeMediaStoreContract } from './media-store.contract.js'

const log = createLogger({ service: 'poster-test', level: 'silent' })
const settings = (url: string) => ({ DATABASE_URL: url, PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: 10_000, PG_ACQUIRE_TIMEOUT_MS: 5_000 })

/** A database of its own, migrated to the poster schema; `drop` removes it. */
async function migratedDatabase (): Promise<{ db: Postgres, database: TestDatabase }> {
  const database = await createTestDatabase('poster')
  const db = openPostgres({ settings: settings(database.url), applicationName: 'poster-test', log })
  await migratePostgres(db, { store: 'poster', schema: POSTER_SCHEMA, migrations: POSTER_POSTGRES_MIGRATIONS, mode: 'migrate' })
  return { db, database }
}

describeMediaStoreContract('postgres', async (options) => {
  const { db, database } = await migratedDatabase()
  const stagingDir = mkdtempSync(join(tmpdir(), 'media-postgres-'))
  const store = await openPostgresMediaStore(db, { stagingDir, ...options })
  return {
    store,
    cleanup: async () => {
      await store.close()
      await database.drop()
      rmSync(stagingDir, { recursive: true, force: true })
    },
  }
})

describe('originals in PostgreSQL chunks', () => {
  let db: Postgres
  let database: TestDatabase
  let stagingDir: string
  let originals: OriginalsPort
  /** the chunk numbers each chunk query asked for, as the statements ran */
  const chunkReads: [number, number][] = []
  const bytes = randomBytes(5 * CHUNK_BYTES + 1_000)
  const key = 'c'.repeat(64)

  beforeAll(async () => {
    ({ db, database } = await migratedDatabase())
    const query = db.query.bind(db)
    const watched: Postgres = {
      ...db,
      query: (text, values) => {
        if (text.includes('FROM poster.original_chunks')) chunkReads.push([Number(values?.[1]), Number(values?.[2])])
        return query(text, values)
      },
    } as Postgres
    stagingDir = mkdtempSync(join(tmpdir(), 'media-postgres-'))
    originals = postgresOriginals(watched, stagingDir, Date.now)
    const staged = join(stagingDir, 'upload')
    writeFileSync(staged, bytes)
    expect(await originals.put(key, staged, { mime_type: 'application/octet-stream' })).toBe('stored')
  })
  afterAll(async () => {
    await db?.close()
    await database?.drop()
    rmSync(stagingDir, { recursive: true, force: true })
  })

  it('stores the file as 255 KiB rows, the last one shorter', async () => {
    const { rows } = await db.query<{ n: number, length: number }>('SELECT n, length(data) AS length FROM poster.original_chunks ORDER BY n')
    expect(rows.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5])
    expect(rows.map((r) => r.length)).toEqual([CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, 1_000])
  })

  it('a Range read fetches only the chunks it overlaps', async () => {
    chunkReads.length = 0
    const stream = await originals.open(key, { start: CHUNK_BYTES + 10, end: 2 * CHUNK_BYTES + 5 })
    const parts: Buffer[] = []
    for await (const part of stream ?? []) parts.push(part as Buffer)
    expect(Buffer.concat(parts).equals(bytes.subarray(CHUNK_BYTES + 10, 2 * CHUNK_BYTES + 6))).toBe(true)
    expect(chunkReads).toEqual([[1, 2]])
  })

  it('a whole read streams: a few chunks per query, each piece at most a chunk, a query only when the reader wants more', async () => {
    chunkReads.length = 0
    const stream = await originals.open(key)
    const parts: Buffer[] = []
    for await (const part of stream ?? []) {
      parts.push(part as Buffer)
      if (parts.length === 1) expect(chunkReads).toEqual([[0, 3]]) // the rest is not fetched yet
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true)
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(CHUNK_BYTES)
    expect(chunkReads).toEqual([[0, 3], [4, 5]])
  })

  it('an original removed while it is read ends the read in an error, never in fewer bytes', async () => {
    const stream = await originals.open(key)
    const reader = stream?.[Symbol.asyncIterator]()
    expect((await reader?.next())?.done).toBe(false)
    await db.query('DELETE FROM poster.originals WHERE key = $1', [key])
    await expect((async () => { for (;;) if ((await reader?.next())?.done !== false) return 'ended' })()).rejects.toThrow(/lost chunks/)
  })
})
