import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { migratePostgres } from '../../src/migrations/postgres.js'
import { SchemaVersionError, type Migration } from '../../src/migrations/plan.js'
import { openPostgres, type Postgres, type Queryable } from '../../src/postgres/database.js'
import { createTestDatabase, type TestDatabase } from '../../src/testing.js'

const log = createLogger({ service: 'test', level: 'silent' })
let database: TestDatabase
let db: Postgres
beforeAll(async () => {
  database = await createTestDatabase('migrations')
  db = openPostgres({
    settings: { DATABASE_URL: database.url, PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: 300, PG_ACQUIRE_TIMEOUT_MS: 2_000 },
    applicationName: 'migrations-test', log,
  })
})
afterAll(async () => {
  await db?.close()
  await database?.drop()
})

const notes = (schema: string): Migration<Queryable>[] => [
  { version: 1, name: 'notes', up: async (q) => { await q.query(`CREATE TABLE ${schema}.notes (id serial PRIMARY KEY, text text NOT NULL)`) } },
  { version: 2, name: 'authors', up: async (q) => { await q.query(`ALTER TABLE ${schema}.notes ADD COLUMN author text NOT NULL DEFAULT ''`) } },
]

describe('migratePostgres', () => {
  it('creates the schema and its tables, records each version with its name, and does nothing the second time', async () => {
    const report = await migratePostgres(db, { store: 'notes', schema: 'notes_a', migrations: notes('notes_a'), mode: 'migrate' })
    expect(report).toMatchObject({ store: 'notes', location: 'PostgreSQL schema notes_a', from: 0, to: 2, applied: [{ version: 1, name: 'notes' }, { version: 2, name: 'authors' }] })
    const { rows } = await db.query<{ version: number, name: string }>('SELECT version, name FROM notes_a.schema_migrations ORDER BY version')
    expect(rows).toEqual([{ version: 1, name: 'notes' }, { version: 2, name: 'authors' }])
    await db.query("INSERT INTO notes_a.notes (text) VALUES ('kept')")
    expect(await migratePostgres(db, { store: 'notes', schema: 'notes_a', migrations: notes('notes_a'), mode: 'migrate' })).toMatchObject({ from: 2, to: 2, applied: [] })
    expect(await migratePostgres(db, { store: 'notes', schema: 'notes_a', migrations: notes('notes_a'), mode: 'check' })).toMatchObject({ to: 2 })
    expect((await db.query('SELECT text, author FROM notes_a.notes')).rows).toEqual([{ text: 'kept', author: '' }])
  })

  it('check mode refuses a schema behind this release or not there at all, and creates nothing', async () => {
    await expect(migratePostgres(db, { store: 'notes', schema: 'notes_b', migrations: notes('notes_b'), mode: 'check' }))
      .rejects.toThrow(/has no schema yet; this release needs version 2: run `npm run admin -- migrate`/)
    expect((await db.query("SELECT 1 FROM pg_namespace WHERE nspname = 'notes_b'")).rowCount).toBe(0)
    await migratePostgres(db, { store: 'notes', schema: 'notes_b', migrations: notes('notes_b').slice(0, 1), mode: 'migrate' })
    await expect(migratePostgres(db, { store: 'notes', schema: 'notes_b', migrations: notes('notes_b'), mode: 'check' }))
      .rejects.toThrow(/has schema version 1; this release needs version 2/)
    await expect(migratePostgres(db, { store: 'notes', schema: 'notes_b', migrations: [], mode: 'migrate' })).rejects.toThrow(SchemaVersionError)
  })

  it('a failing migration leaves nothing of itself: its DDL and its record roll back together', async () => {
    const broken: Migration<Queryable>[] = [...notes('notes_c'), {
      version: 3, name: 'broken', up: async (q) => { await q.query('CREATE TABLE notes_c.half (x int)'); await q.query('SELECT no_such_column FROM notes_c.notes') },
    }]
    await expect(migratePostgres(db, { store: 'notes', schema: 'notes_c', migrations: broken, mode: 'migrate' })).rejects.toThrow(/no_such_column/)
    expect((await db.query('SELECT max(version) AS v FROM notes_c.schema_migrations')).rows).toEqual([{ v: 2 }])
    expect((await db.query("SELECT to_regclass('notes_c.half') AS t")).rows).toEqual([{ t: null }])
  })

  it('two processes starting at once: one migrates under the advisory lock, the other waits and finds it done', async () => {
    const second = openPostgres({
      settings: { DATABASE_URL: database.url, PG_POOL_SIZE: 2, PG_STATEMENT_TIMEOUT_MS: 300, PG_ACQUIRE_TIMEOUT_MS: 2_000 },
      applicationName: 'migrations-test-2', log,
    })
    // slower than the pools' statement timeout: the migration session runs without it
    const slow: Migration<Queryable>[] = [{
      version: 1, name: 'slow', up: async (q) => {
        await q.query('CREATE TABLE IF NOT EXISTS notes_d.runs (at timestamptz NOT NULL DEFAULT now())')
        await q.query('INSERT INTO notes_d.runs DEFAULT VALUES')
        await q.query('SELECT pg_sleep(1)')
      },
    }]
    try {
      const reports = await Promise.all([db, second].map((pool) => migratePostgres(pool, { store: 'notes', schema: 'notes_d', migrations: slow, mode: 'migrate' })))
      expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 1])
      expect(reports.map((r) => r.to)).toEqual([1, 1])
      expect((await db.query('SELECT count(*)::int AS n FROM notes_d.runs')).rows).toEqual([{ n: 1 }])
      // the lock went with the sessions: the pools' connections hold none
      expect((await db.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).rows).toEqual([{ n: 0 }])
    } finally {
      await second.close()
    }
  })
})
