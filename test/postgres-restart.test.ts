import { checkHealth } from '@content/platform'
import { onServer, startPostgresCluster, type PostgresCluster } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { must } from './support/must.js'
import { expectError, login } from './support/seeded.js'
import { startServices, type Services } from './support/services.js'
import { holdTableLock } from './support/table-lock.js'
import { ADMIN, http, removeDir, type Reply } from './support/system.js'

/**
 * Every service on PostgreSQL (a cluster of the test's own, so it can be stopped), the read cache on as
 * `npm start` has it, two objects processes and two gateways: the database stopped and started again while creates and reads run. The objects
 * service is the one whose writes number their events after the commit and whose change feed keeps every
 * gateway's cache fresh, so both must come back by themselves.
 */
let cluster: PostgresCluster
let services: Services
const STATEMENT_TIMEOUT_MS = 1_500
const ACQUIRE_TIMEOUT_MS = 400
/** the gateway's deadline for a backend call, and some slack: no request may take longer */
const DEADLINE_MS = 5_000 + 2_000

beforeAll(async () => {
  cluster = await startPostgresCluster()
  services = await startServices({
    STORE: 'postgres', DATABASE_URL: cluster.url, PG_POOL_SIZE: '4',
    PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), PG_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
  }, { gateways: 2, objectsReplicas: 2 })
}, 180_000)
afterAll(async () => {
  await services?.stop()
  if (services) removeDir(services.dataDir)
  await cluster?.destroy()
})

/** each objects process's own address (the gateways resolve `ipv4:a,b` to both) */
const replicas = () => services.objectsAddr.replace(/^ipv4:/, '').split(',')
const rows = async <T>(sql: string): Promise<T[]> => (await onServer((client) => client.query(sql), cluster.url)).rows as T[]

async function until (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('the whole system on PostgreSQL, the database restarted', () => {
  // `fast`: a restart's shutdown (sessions ended, a checkpoint); `immediate`: as a crash (recovery from the WAL at start)
  it.each(['fast', 'immediate'] as const)('stopped (%s) under creates and reads: 503 with the error body meanwhile, never a hang, readiness false; then back by itself, no acknowledged create lost, every event numbered once without gaps, the caches fresh again', async (mode) => {
    const { base } = services
    const admin = await login(base, ADMIN.username, ADMIN.password)
    const auth = { authorization: `Bearer ${admin.access_token}` }
    const create = (title: string) => http(base, 'POST', '/objects', { headers: auth, body: { data: { object_type: 'document', title, parents: [1] } } })

    // a section whose children list the gateway caches before the outage, for the freshness check after it
    const section = await http(base, 'POST', '/objects', { headers: auth, body: { data: { object_type: 'section', title: `Before the ${mode} stop`, parents: [1] } } })
    expect(section.status).toBe(201)
    const sectionId: number = section.body.data.object.id
    // read through the first gateway; written through the second, whose change reaches the first only by the feed
    const children = () => http(base, 'GET', `/objects/${sectionId}/children`)
    expect((await children()).body.data.objects).toEqual([])

    const acknowledged = new Map<number, string>()
    const refusals: string[] = []
    let slowest = 0
    let running = true
    let n = 0
    const timed = async (work: () => Promise<Reply>): Promise<Reply> => {
      const started = Date.now()
      try {
        return await work()
      } finally {
        slowest = Math.max(slowest, Date.now() - started)
      }
    }
    const refused = (reply: Reply) => {
      // what a client may see while the database is away: 503 with the error body and when to try again
      expectError(reply, 503, 'SERVICE_UNAVAILABLE')
      expect(reply.headers.get('retry-after')).toBe('1')
      refusals.push(reply.body.error.code)
    }
    const creates = async () => {
      while (running) {
        const title = `restart ${n++}`
        const res = await timed(() => create(title))
        if (res.status === 201) acknowledged.set(res.body.data.object.id, title)
        else refused(res)
      }
    }
    const reads = async () => {
      while (running) {
        const ids = [...acknowledged.keys()]
        const id = ids[Math.floor(Math.random() * ids.length)] ?? 1
        const res = await timed(() => http(base, 'GET', `/objects/${id}`))
        if (res.status !== 200) refused(res)
      }
    }
    const workers = [creates(), creates(), reads()]
    try {
      await until('creates before the outage', async () => acknowledged.size >= 10)

      await cluster.stop(mode)
      await until('the objects processes not ready', async () => (await Promise.all(replicas().map((r) => checkHealth(r, 1_000)))).every((up) => !up), 10_000)
      expect((await http(base, 'GET', '/readyz')).status).toBe(503)
      await until('refusals meanwhile', async () => refusals.length >= 5, 10_000)
      const duringOutage = acknowledged.size

      await cluster.start()
      await until('ready again', async () => (await Promise.all(replicas().map((r) => checkHealth(r, 1_000)))).every((up) => up) && (await http(base, 'GET', '/readyz')).status === 200)
      await until('creating again', async () => acknowledged.size > duringOutage + 10)
    } finally {
      running = false
      await Promise.all(workers)
    }
    expect(slowest).toBeLessThan(DEADLINE_MS)

    // every create answered 201, before, during or after the outage, is there
    for (const [id, title] of acknowledged) {
      const res = await http(base, 'GET', `/objects/${id}`)
      expect(res.status, `object ${id}`).toBe(200)
      expect(res.body.data.object.title).toBe(title)
    }
    // the events of the writes that committed are numbered once each, from 1, without gaps, by themselves
    await until('every event numbered', async () => (await rows<{ n: number }>('SELECT count(*)::int AS n FROM objects.changes WHERE seq IS NULL'))[0]?.n === 0, 10_000)
    const [numbering] = await rows<{ events: number, numbers: number, first: number, last: number }>(
      'SELECT count(*)::int AS events, count(DISTINCT seq)::int AS numbers, min(seq)::int AS first, max(seq)::int AS last FROM objects.changes')
    expect(numbering).toMatchObject({ first: 1, numbers: numbering?.events, last: numbering?.events })
    const created = new Set((await rows<{ id: number }>("SELECT object_id::int AS id FROM objects.changes WHERE type = 'object.created'")).map((r) => r.id))
    for (const id of acknowledged.keys()) expect(created.has(id), `object.created of ${id}`).toBe(true)

    // the change feed came back: a write through the other gateway after the outage reaches the list the
    // first cached before it, whichever objects process wrote it and whichever feeds the first gateway
    // (four creates: the second gateway's calls go round the two processes)
    const after: number[] = []
    for (let i = 0; i < 4; i++) {
      const res = await http(must(services.bases[1]), 'POST', '/objects', { headers: auth, body: { data: { object_type: 'document', title: `After the outage ${i}`, parents: [sectionId] } } })
      expect(res.status).toBe(201)
      after.push(res.body.data.object.id)
    }
    await until('the cached list fresh again', async () => {
      const listed = new Set((await children()).body.data.objects.map((o: { id: number }) => o.id))
      return after.every((id) => listed.has(id))
    }, 2_000)
  }, 180_000)

  it('with the objects table locked: creates and uncached reads answer 503 (every connection busy) or 504 (a statement past its limit) within their bounds, never waiting forever; then served again', async () => {
    const { base } = services
    const admin = await login(base, ADMIN.username, ADMIN.password)
    const auth = { authorization: `Bearer ${admin.access_token}` }
    const locked = await holdTableLock(cluster.url, 'objects.objects', 4_000)
    const started = Date.now()
    const replies = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => http(base, 'POST', '/objects', { headers: auth, body: { data: { object_type: 'document', title: `while locked ${i}`, parents: [1] } } })),
      // pages nobody read yet: past the read cache, to the store
      ...Array.from({ length: 6 }, (_, i) => http(base, 'GET', `/objects?page_size=${90 + i}`)),
    ])
    expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 2_000)
    const codes = replies.map((r) => `${r.status} ${r.body?.error?.code}`)
    expect(codes.every((c) => c === '503 SERVICE_UNAVAILABLE' || c === '504 BACKEND_TIMEOUT'), codes.join(', ')).toBe(true)
    await locked.released
    const created = await http(base, 'POST', '/objects', { headers: auth, body: { data: { object_type: 'document', title: 'after the lock', parents: [1] } } })
    expect(created.status).toBe(201)
    // nothing of the refused creates was written
    const titles = await rows<{ title: string }>("SELECT title FROM objects.objects WHERE title LIKE 'while locked %'")
    expect(titles).toEqual([])
  }, 60_000)
})
