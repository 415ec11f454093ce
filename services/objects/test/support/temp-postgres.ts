import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createPool } from '../../src/store/postgres/db.postgres.js'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import type { StoreOptions } from '../../src/store/store-options.js'

/**
 * PostgreSQL for the tests: the server of `TEST_DATABASE_URL` (this machine's by default: trust
 * authentication on 127.0.0.1). Every store gets a schema of its own in one test database, dropped when
 * it closes; the database and pg_trgm are made once. An unreachable server fails the tests that need it:
 * they are never skipped.
 */
const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const DATABASE = 'content_objects_tests'

const withDatabase = (url: string, database: string): URL => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u
}

let ready: Promise<void> | undefined

/** Creates the test database and pg_trgm in it, once per process (several processes may race: one wins, the others find them). */
function prepare (): Promise<void> {
  ready ??= (async () => {
    const admin = new pg.Client({ connectionString: SERVER })
    await admin.connect()
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])
      if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`).catch((err: { code?: string }) => { if (err.code !== '42P04' && err.code !== '23505') throw err })
    } finally {
      await admin.end()
    }
    const db = new pg.Client({ connectionString: withDatabase(SERVER, DATABASE).toString() })
    await db.connect()
    try {
      await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').catch((err: { code?: string }) => { if (err.code !== '23505' && err.code !== '42710') throw err })
    } finally {
      await db.end()
    }
  })()
  return ready
}

/** A fresh schema: its URL (search_path set to it) and how to drop it. */
export async function tempSchema (): Promise<{ url: string, drop: () => Promise<void> }> {
  await prepare()
  const schema = `t_${randomBytes(6).toString('hex')}`
  const base = withDatabase(SERVER, DATABASE)
  const admin = new pg.Client({ connectionString: base.toString() })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = new URL(base)
  url.searchParams.set('options', `-c search_path=${schema},public`)
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base.toString() })
      await c.connect()
      try {
        await c.query(`DROP SCHEMA ${schema} CASCADE`)
      } finally {
        await c.end()
      }
    },
  }
}

/** A PostgreSQL objects store in a fresh schema; `cleanup` closes it and drops the schema. */
export async function tempPostgresStore (options: Partial<StoreOptions> = {}): Promise<{ store: ObjectsStore, url: string, cleanup: () => Promise<void> }> {
  const { url, drop } = await tempSchema()
  const store = await openPostgresStore(createPool({ url, max: 4 }), { publicationNickname: 'publication', ...options, url })
  return { store, url, cleanup: async () => { await store.close(); await drop() } }
}
