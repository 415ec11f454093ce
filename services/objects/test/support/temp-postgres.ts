import { randomBytes } from 'node:crypto'
import { openPostgres, type PostgresSettings } from '@content/platform/postgres'
import { createTestDatabase, type TestDatabase } from '@content/platform/testing'
import pg from 'pg'
import { createLogger } from '@content/platform'
import { afterAll } from 'vitest'
import type { ObjectsStore } from '../../src/core/ports.js'
import { storeUrl } from '../../src/store/postgres/migrations.postgres.js'
import { openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/postgres.store.js'

/**
 * PostgreSQL stores for the tests, on the machine's server (@content/platform/testing: never skipped, an
 * unreachable server fails the test). A test file gets one database, made when its first store opens and
 * dropped after its tests; every store gets a schema of its own in it, dropped when the store closes
 * (making a database per store would cost more than most tests).
 */
let database: Promise<TestDatabase> | undefined
afterAll(async () => { if (database) await (await database).drop() })

function fileDatabase (): Promise<TestDatabase> {
  database ??= (async () => {
    const db = await createTestDatabase('objects')
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    // the stores' schemas find pg_trgm's operator classes here, through their search_path
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public')
    await client.end()
    return db
  })()
  return database
}

export const testSettings = (url: string, poolSize = 4): PostgresSettings =>
  ({ DATABASE_URL: url, PG_POOL_SIZE: poolSize, PG_STATEMENT_TIMEOUT_MS: 30_000, PG_ACQUIRE_TIMEOUT_MS: 10_000 })

/** A fresh schema of the file's database: a URL whose connections use it, and how to drop it. */
export async function tempSchema (): Promise<{ url: string, drop: () => Promise<void> }> {
  const db = await fileDatabase()
  const schema = `s_${randomBytes(6).toString('hex')}`
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await run(`CREATE SCHEMA ${schema}`)
  // connections as the service makes them (its settings), in this schema
  return { url: storeUrl(db.url, schema), drop: () => run(`DROP SCHEMA ${schema} CASCADE`) }
}

/** The schema a tempSchema URL names (its search_path). */
export const schemaOf = (url: string): string | undefined => /search_path=([^,\s]+)/.exec(new URL(url).searchParams.get('options') ?? '')?.[1]

/** Opens the objects store at `url` (in the schema it names) as the service does, on a pool of its own. */
export function openTestStore (url: string, options: Partial<PostgresStoreOptions> = {}, poolSize = 4): Promise<ObjectsStore> {
  const settings = testSettings(url, poolSize)
  const schema = schemaOf(url)
  return openPostgresStore(openPostgres({ settings, applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) }),
    { publicationNickname: 'publication', ...options, ...(schema === undefined ? {} : { schema }) })
}

/** A PostgreSQL objects store in a fresh schema; `cleanup` closes it and drops the schema. */
export async function tempPostgresStore (options: Partial<PostgresStoreOptions> = {}): Promise<{ store: ObjectsStore, url: string, cleanup: () => Promise<void> }> {
  const { url, drop } = await tempSchema()
  const store = await openTestStore(url, options)
  return { store, url, cleanup: async () => { await store.close(); await drop() } }
}
