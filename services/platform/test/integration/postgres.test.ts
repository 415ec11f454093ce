import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { openPostgres, type Postgres } from '../../src/postgres/database.js'
import { createTestDatabase, freePort, type TestDatabase } from '../../src/testing.js'

const log = createLogger({ service: 'test', level: 'silent' })
const settings = (url: string, overrides: Partial<{ PG_POOL_SIZE: number, PG_STATEMENT_TIMEOUT_MS: number, PG_ACQUIRE_TIMEOUT_MS: number }> = {}) => ({
  DATABASE_URL: url, PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: 2_000, PG_ACQUIRE_TIMEOUT_MS: 500, ...overrides,
})

let database: TestDatabase
let db: Postgres
beforeAll(async () => {
  database = await createTestDatabase('platform')
  db = openPostgres({ settings: settings(database.url), applicationName: 'platform-test', log })
  await db.query('CREATE TABLE counters (name text PRIMARY KEY, n bigint NOT NULL)')
})
afterAll(async () => {
  await db?.close()
  await database?.drop()
})

/** What `work` rejects with. */
async function rejection (work: Promise<unknown>): Promise<unknown> {
  try {
    await work
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection')
}

/** Resolves every caller once `count` have called. */
function barrier (count: number): () => Promise<void> {
  let arrived = 0
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => { open = resolve })
  return () => {
    if (++arrived >= count) open()
    return opened
  }
}

describe('a pool on DATABASE_URL', () => {
  it('reads bigint columns as numbers', async () => {
    await db.query("INSERT INTO counters VALUES ('big', 9007199254740991)")
    const { rows } = await db.query<{ n: number }>("SELECT n FROM counters WHERE name = 'big'")
    expect(rows[0]?.n).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('commits a transaction, and rolls back one whose work throws, rethrowing its error', async () => {
    await db.transaction(async (tx) => { await tx.query("INSERT INTO counters VALUES ('kept', 1)") })
    const thrown = new Error('the work failed')
    expect(await rejection(db.transaction(async (tx) => {
      await tx.query("INSERT INTO counters VALUES ('dropped', 1)")
      throw thrown
    }))).toBe(thrown)
    const { rows } = await db.query<{ name: string }>("SELECT name FROM counters WHERE name IN ('kept', 'dropped')")
    expect(rows.map((r) => r.name)).toEqual(['kept'])
  })

  it('runs a serializable transaction again when PostgreSQL aborts it for a conflict, so both increments land', async () => {
    await db.query("INSERT INTO counters VALUES ('serial', 0)")
    let runs = 0
    // each reads, waits for the other to read, then writes: one of the two must abort with 40001
    const bothRead = barrier(2)
    const increment = () => db.transaction(async (tx) => {
      runs++
      const { rows } = await tx.query<{ n: number }>("SELECT n FROM counters WHERE name = 'serial'")
      if (runs <= 2) await bothRead()
      await tx.query("UPDATE counters SET n = $1 WHERE name = 'serial'", [(rows[0]?.n ?? 0) + 1])
    }, { isolation: 'serializable' })
    await Promise.all([increment(), increment()])
    const { rows } = await db.query<{ n: number }>("SELECT n FROM counters WHERE name = 'serial'")
    expect(rows[0]?.n).toBe(2)
    expect(runs).toBe(3)
  })

  it('does not run the work again when asked not to: the conflict reaches the caller', async () => {
    await db.query("INSERT INTO counters VALUES ('once', 0)")
    const bothRead = barrier(2)
    const increment = () => db.transaction(async (tx) => {
      await tx.query("SELECT n FROM counters WHERE name = 'once'")
      await bothRead()
      await tx.query("UPDATE counters SET n = n + 1 WHERE name = 'once'")
    }, { isolation: 'serializable', attempts: 1 })
    const outcomes = await Promise.allSettled([increment(), increment()])
    const failed = outcomes.filter((o) => o.status === 'rejected')
    expect(failed).toHaveLength(1)
    expect(((failed[0] as PromiseRejectedResult).reason as { code?: string }).code).toBe('40001')
  })

  it('lends one connection for work that needs it whole, and replaces it when the work broke it', async () => {
    const pids = await db.withClient(async (client) => {
      await client.query("SET application_name = 'lent'")
      return [(await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid, (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid]
    })
    expect(pids[0]).toBe(pids[1])
    const broken = await rejection(db.withClient(async (client) => { await client.query('SELECT pg_terminate_backend(pg_backend_pid())') }))
    expect(broken).toMatchObject({ reason: 'SERVICE_UNAVAILABLE' })
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })

  it('answers a statement past PG_STATEMENT_TIMEOUT_MS as a timeout (504), and the pool goes on serving', async () => {
    const short = openPostgres({ settings: settings(database.url, { PG_STATEMENT_TIMEOUT_MS: 200 }), applicationName: 'platform-test', log })
    try {
      const started = Date.now()
      const err = await rejection(short.query('SELECT pg_sleep(5)'))
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(err).toBeInstanceOf(DomainError)
      expect(err).toMatchObject({ reason: 'BACKEND_TIMEOUT', code: 'DEADLINE_EXCEEDED' })
      expect((await short.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      await short.close()
    }
  })

  it('answers 503 within the acquire timeout when every connection stays busy, never waiting forever', async () => {
    const small = openPostgres({ settings: settings(database.url, { PG_POOL_SIZE: 2, PG_ACQUIRE_TIMEOUT_MS: 300 }), applicationName: 'platform-test', log })
    try {
      const busy = [small.query('SELECT pg_sleep(1.5)'), small.query('SELECT pg_sleep(1.5)')]
      await new Promise((resolve) => setTimeout(resolve, 200))
      const started = Date.now()
      const err = await rejection(small.query('SELECT 1'))
      const waited = Date.now() - started
      expect(waited).toBeGreaterThanOrEqual(250)
      expect(waited).toBeLessThan(1_200)
      expect(err).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', code: 'UNAVAILABLE' })
      expect((err as Error).message).toContain('all 2 connections stayed in use for 300 ms')
      expect(await small.ping()).toBe(true) // busy is not unreachable
      await Promise.all(busy)
      expect((await small.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      await small.close()
    }
  })

  it('answers 503 at once when nothing listens at the address, and tells who follows availability', async () => {
    const port = await freePort()
    const nowhere = openPostgres({ settings: settings(`postgres://postgres@127.0.0.1:${port}/none`), applicationName: 'platform-test', log })
    let told = 0
    nowhere.onUnreachable(() => { told++ })
    try {
      const started = Date.now()
      const err = await rejection(nowhere.query('SELECT 1'))
      expect(Date.now() - started).toBeLessThan(1_000)
      expect(err).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', message: 'the database cannot be reached; try again shortly' })
      expect(await rejection(nowhere.transaction(async () => 1))).toMatchObject({ reason: 'SERVICE_UNAVAILABLE' })
      expect(told).toBe(2)
      expect(await nowhere.ping()).toBe(false)
    } finally {
      await nowhere.close()
    }
  })
})
