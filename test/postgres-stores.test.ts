import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { checkHealth } from '@content/platform'
import { onServer, startPostgresCluster, type PostgresCluster } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getBytes, photo, upload } from './support/media.js'
import { must } from './support/must.js'
import { expectError, login } from './support/seeded.js'
import { startServices, type Services } from './support/services.js'
import { holdTableLock } from './support/table-lock.js'
import { ADMIN, http, removeDir } from './support/system.js'

/**
 * Auth and poster on PostgreSQL (a cluster of the test's own, so it can be stopped), the objects service on
 * SQLite beside them, driven through the gateway: what a user does, then the database stopped and started
 * again under load, then every connection held.
 */
let cluster: PostgresCluster
let services: Services
const POOL = 2
const STATEMENT_TIMEOUT_MS = 1_500
const ACQUIRE_TIMEOUT_MS = 400
/** the gateway's deadline for a backend call, and some slack: no request may take longer */
const DEADLINE_MS = 5_000 + 2_000

beforeAll(async () => {
  cluster = await startPostgresCluster()
  const pg = { DATABASE_URL: cluster.url, PG_POOL_SIZE: String(POOL), PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), PG_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS) }
  services = await startServices({ READ_CACHE: 'false' }, { serviceEnv: { auth: { STORE: 'postgres', ...pg }, poster: { MEDIA_STORE: 'postgres', ...pg } } })
}, 180_000)
afterAll(async () => {
  await services?.stop()
  if (services) removeDir(services.dataDir)
  await cluster?.destroy()
})

const rows = async (sql: string) => (await onServer((client) => client.query(sql), cluster.url)).rows
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const createImage = (token: string, uploadToken: string, title: string) => http(services.base, 'POST', '/objects', {
  headers: bearer(token), body: { data: { object_type: 'image', title, parents: [1], upload_token: uploadToken } },
})

describe('auth and poster on PostgreSQL', () => {
  it('serve logins, refreshes, uploads, originals by range and thumbnails, keeping nothing of it on disk', async () => {
    const { base } = services
    const tokens = await login(base, ADMIN.username, ADMIN.password)
    const refreshed = await http(base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token } })
    expect(refreshed.status).toBe(200)
    const bytes = await photo(3, 900, 600)
    const up = await upload(base, tokens.access_token, 'image', 'lake.jpg', bytes, 'image/jpeg')
    expect(up.status).toBe(200)
    const created = await createImage(tokens.access_token, up.body.data.upload_token, 'Lake')
    expect(created.status).toBe(201)
    const id = created.body.data.object.id
    expect((await getBytes(`${base}/media/${id}/lake.jpg`)).bytes.equals(bytes)).toBe(true)
    const range = await getBytes(`${base}/media/${id}/lake.jpg`, { range: 'bytes=100-1099' })
    expect(range.status).toBe(206)
    expect(range.bytes.equals(bytes.subarray(100, 1100))).toBe(true)
    const poster = await http(base, 'GET', `/poster/${id}?width=120`)
    const thumbnail = await getBytes(poster.body.data.uri)
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg')

    expect(await rows('SELECT username FROM auth.users')).toEqual([{ username: 'admin' }])
    expect(await rows('SELECT count(*)::int AS n FROM auth.refresh_tokens')).toEqual([{ n: 2 }])
    expect(await rows('SELECT length::int AS length FROM poster.originals')).toEqual([{ length: bytes.length }])
    expect(await rows('SELECT count(*)::int AS n FROM poster.thumbnails')).toEqual([{ n: 1 }])
    expect(await rows('SELECT max(version)::int AS v FROM auth.schema_migrations UNION ALL SELECT max(version)::int FROM poster.schema_migrations')).toEqual([{ v: 2 }, { v: 1 }])
    expect(existsSync(join(services.dataDir, 'auth.sqlite'))).toBe(false)
    expect(existsSync(join(services.dataDir, 'media', 'originals'))).toBe(false)
  })

  it('stopped and started again under load: 503 with the error body meanwhile, never a hang, readiness false, then back by itself; no acknowledged write lost', async () => {
    const { base } = services
    const admin = await login(base, ADMIN.username, ADMIN.password)
    const acknowledged = { logins: [] as string[], uploads: [] as { token: string, bytes: Buffer }[] }
    const refusals: string[] = []
    let slowest = 0
    let running = true
    let seed = 100
    const timed = async <T>(work: () => Promise<T>): Promise<T> => {
      const started = Date.now()
      try {
        return await work()
      } finally {
        slowest = Math.max(slowest, Date.now() - started)
      }
    }
    const refused = (reply: { status: number, body: { error?: { code?: string } } }) => {
      // the only failure a client may see: 503 with the error body
      expectError(reply as never, 503, 'SERVICE_UNAVAILABLE')
      refusals.push(reply.body.error?.code ?? '')
    }
    const logins = async () => {
      while (running) {
        const res = await timed(() => http(base, 'POST', '/auth', { body: { username: ADMIN.username, password: ADMIN.password } }))
        if (res.status === 200) acknowledged.logins.push(res.body.data.refresh_token)
        else refused(res)
      }
    }
    const uploads = async () => {
      while (running) {
        const bytes = await photo(seed++, 60, 40)
        const res = await timed(() => upload(base, admin.access_token, 'image', 'p.jpg', bytes, 'image/jpeg'))
        if (res.status === 200) acknowledged.uploads.push({ token: res.body.data.upload_token, bytes })
        else refused(res)
      }
    }
    const workers = [logins(), logins(), uploads()]
    const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
      const end = Date.now() + timeoutMs
      while (!(await check())) {
        if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    await until('load before the outage', async () => acknowledged.logins.length >= 10 && acknowledged.uploads.length >= 3)

    await cluster.stop('fast')
    await until('auth and poster not ready', async () => !(await checkHealth(services.authAddr, 1_000)) && !(await checkHealth(services.posterAddr, 1_000)), 10_000)
    expect((await http(base, 'GET', '/readyz')).status).toBe(503)
    await until('refusals meanwhile', async () => refusals.length >= 5, 10_000)
    const duringOutage = { logins: acknowledged.logins.length, uploads: acknowledged.uploads.length }

    await cluster.start()
    await until('ready again', async () => (await checkHealth(services.authAddr, 1_000)) && (await checkHealth(services.posterAddr, 1_000)))
    await until('served again', async () => acknowledged.logins.length > duringOutage.logins + 10 && acknowledged.uploads.length > duringOutage.uploads + 2)
    running = false
    await Promise.all(workers)
    expect((await http(base, 'GET', '/readyz')).status).toBe(200)
    expect(slowest).toBeLessThan(DEADLINE_MS)

    // every login acknowledged before, during or after the outage still refreshes; every upload is still there
    for (const token of acknowledged.logins) {
      const res = await http(base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: token } })
      expect(res.status, token).toBe(200)
    }
    for (const [i, up] of acknowledged.uploads.entries()) {
      const created = await createImage(admin.access_token, up.token, `upload ${i}`)
      expect(created.status).toBe(201)
      expect((await getBytes(`${base}/media/${created.body.data.object.id}/p.jpg`)).bytes.equals(up.bytes)).toBe(true)
    }
  }, 180_000)

  it('with every connection held: 503 (the pool exhausted) or 504 (a statement past its limit), each within its bound, never waiting forever', async () => {
    const { base } = services
    const locked = await holdTableLock(cluster.url, 'auth.users', 4_000)
    const started = Date.now()
    const replies = await Promise.all(Array.from({ length: 6 }, () => http(base, 'POST', '/auth', { body: { username: ADMIN.username, password: ADMIN.password } })))
    expect(Date.now() - started).toBeLessThan(STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 2_000)
    const codes = replies.map((r) => `${r.status} ${r.body?.error?.code}`)
    expect(codes.filter((c) => c === '503 SERVICE_UNAVAILABLE').length, codes.join(', ')).toBeGreaterThanOrEqual(6 - POOL)
    expect(codes.every((c) => c === '503 SERVICE_UNAVAILABLE' || c === '504 BACKEND_TIMEOUT'), codes.join(', ')).toBe(true)
    // the gateway keeps the backend's words to itself on a 5xx (its own rule); the client is told when to try again
    expect(must(replies.find((r) => r.status === 503)).headers.get('retry-after')).toBe('1')
    await locked.released
    expect((await http(base, 'POST', '/auth', { body: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(200)
  }, 60_000)
})
