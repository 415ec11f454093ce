import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DomainError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { followAvailability, type Availability } from '../../src/postgres/availability.js'
import { openPostgres, type Postgres } from '../../src/postgres/database.js'
import { checkHealth } from '../../src/rpc/client.js'
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js'
import { startPostgresCluster, testIdentity, type PostgresCluster } from '../../src/testing.js'

const log = createLogger({ service: 'test', level: 'silent' })
const STATEMENT_TIMEOUT_MS = 1_000
const ACQUIRE_TIMEOUT_MS = 500
/** the longest a call may take, whatever the database does: a statement's limit, a connection's wait, slack */
const DEADLINE_MS = STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 1_000

let cluster: PostgresCluster
let db: Postgres
let server: RpcServer
let address: string
let availability: Availability
beforeAll(async () => {
  cluster = await startPostgresCluster()
  db = openPostgres({
    settings: { DATABASE_URL: cluster.url, PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: STATEMENT_TIMEOUT_MS, PG_ACQUIRE_TIMEOUT_MS: ACQUIRE_TIMEOUT_MS },
    applicationName: 'restart-test', log,
  })
  await db.query('CREATE TABLE writes (id integer PRIMARY KEY)')
  server = createRpcServer(log, { identity: testIdentity('test').verifiers })
  availability = followAvailability(db, { log, onChange: (up) => server.setServing(up), upIntervalMs: 200, downIntervalMs: 100 })
  address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`
}, 120_000)
afterAll(async () => {
  availability?.stop()
  await server?.shutdown(1_000)
  await db?.close()
  await cluster?.destroy()
})

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<number> {
  const started = Date.now()
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

describe('PostgreSQL stopped and started again under load', () => {
  it('calls answer 503 meanwhile and never hang, readiness goes false and comes back, no acknowledged write is lost', async () => {
    expect(await checkHealth(address, 1_000)).toBe(true)
    const acknowledged: number[] = []
    const refusals = new Map<string, number>()
    let slowest = 0
    let next = 1
    let running = true
    const worker = async () => {
      while (running) {
        const id = next++
        const started = Date.now()
        try {
          await db.transaction(async (tx) => { await tx.query('INSERT INTO writes (id) VALUES ($1)', [id]) })
          acknowledged.push(id)
        } catch (err) {
          // only the domain's answers: 503 (unreachable) or 504 (a statement cut short); nothing else
          expect(err).toBeInstanceOf(DomainError)
          const reason = (err as DomainError).reason
          expect(['SERVICE_UNAVAILABLE', 'BACKEND_TIMEOUT']).toContain(reason)
          refusals.set(reason, (refusals.get(reason) ?? 0) + 1)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        slowest = Math.max(slowest, Date.now() - started)
      }
    }
    const workers = [worker(), worker(), worker()]
    await until('writes before the outage', async () => acknowledged.length >= 50)

    await cluster.stop('fast')
    const beforeDown = acknowledged.length
    await until('readiness false', async () => !(await checkHealth(address, 1_000)), 5_000)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(refusals.get('SERVICE_UNAVAILABLE') ?? 0).toBeGreaterThan(0)
    expect(acknowledged.length - beforeDown).toBeLessThanOrEqual(3) // only those whose commit raced the stop

    await cluster.start()
    await until('readiness back', () => checkHealth(address, 1_000), 10_000)
    const afterUp = acknowledged.length
    await until('writes after the outage', async () => acknowledged.length >= afterUp + 50)
    running = false
    await Promise.all(workers)

    expect(slowest).toBeLessThan(DEADLINE_MS)
    const { rows } = await db.query<{ id: number }>('SELECT id FROM writes')
    const stored = new Set(rows.map((r) => r.id))
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
  }, 90_000)

  it('a restart while idle: the next calls are served again by themselves', async () => {
    await cluster.restart()
    await until('served again', async () => (await db.query('SELECT 1').then(() => true, () => false)), 10_000)
    await until('readiness', () => checkHealth(address, 1_000), 5_000)
  }, 60_000)
})
