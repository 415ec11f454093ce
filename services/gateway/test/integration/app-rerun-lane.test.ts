import { DomainError } from '@content/platform'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { sampleOf, scrape } from '../support/exposition.js'
import type { FakeBackends } from '../support/fake-backends.js'
import { gatewayTest } from '../support/gateway-test.js'
import { answerOf, backendReads as readsOf, listeningApp, type Listening } from '../support/lane-app.js'
import { accessLines, capturedLog } from '../support/log-lines.js'
import type { TestAppOptions } from '../support/test-app.js'
import { laneRules } from '../support/lane-rules.js'

// A request the rerun lane hands over reaches fastify (fastifySaw counts it); one it answers does not.

const setup = gatewayTest(null)

/** A gateway with the read cache off (the rerun lane in front), unless `settings` say otherwise. */
async function listening (options: TestAppOptions = {}): Promise<Listening> {
  const gateway = await listeningApp(setup.backends, { ...options, settings: { readCache: false, ...options.settings } })
  setup.closing(gateway.app)
  return gateway
}

/** The x-request-id each GetObject the objects fake received carried, in order. */
const forwarded: unknown[] = []
let gw: Listening
beforeAll(async () => {
  const getObject = setup.backends.objects.GetObject
  setup.backends.objects.GetObject = async (request, call) => {
    forwarded.push(call.metadata.get('x-request-id')[0])
    return getObject(request, call)
  }
  gw = await listening()
})

const backendReads = () => readsOf(setup.backends)

/** Reads `url` once through the full path, which teaches the lane; its answer. */
async function taught (target: Listening, url: string, headers: Record<string, string> = {}) {
  const saw = target.fastifySaw()
  const full = await answerOf(await fetch(target.base + url, { headers }))
  expect(full.status).toBe(200)
  expect(target.fastifySaw()).toBe(saw + 1)
  return full
}

/** Swaps the objects fake's GetObject while `run` runs. */
async function withGetObject (impl: FakeBackends['objects']['GetObject'], run: () => Promise<void>) {
  const original = setup.backends.objects.GetObject
  setup.backends.objects.GetObject = impl
  try {
    await run()
  } finally {
    setup.backends.objects.GetObject = original
  }
}

describe('the rerun lane (read cache off)', () => {
  it('answers a repeated read before fastify, asking the backend each time, with the bytes and headers the full path answered and its own request id', async () => {
    const url = '/objects/3?lang=en'
    const full = await taught(gw, url)
    const saw = gw.fastifySaw()
    const reads = backendReads()
    const first = await fetch(gw.base + url)
    const second = await fetch(gw.base + url, { headers: { 'x-request-id': 'client-chosen-id' } })
    const third = await fetch(gw.base + url, { headers: { 'x-request-id': 'tab\there' } })
    expect(gw.fastifySaw()).toBe(saw)
    // nothing is kept: each answer is the backend's of the moment
    expect(backendReads()).toBe(reads + 3)
    for (const res of [first, second, third]) expect(await answerOf(res)).toEqual(full)
    expect(full.headers).toMatchObject({ 'cache-control': 'no-cache', 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' })
    expect(full.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    // each request's id travels to the backend and comes back on its answer; an unsafe one is replaced
    expect(second.headers.get('x-request-id')).toBe('client-chosen-id')
    expect(third.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(forwarded.slice(-3)).toEqual([first, second, third].map((res) => res.headers.get('x-request-id')))
  })

  it('answers what the backend answers now: a changed object has its new bytes and ETag', async () => {
    const url = '/objects/4'
    const full = await taught(gw, url)
    const saw = gw.fastifySaw()
    const current = setup.backends.objects.GetObject
    await withGetObject(async (request, call) => {
      const answer = await current(request, call)
      return { ...answer, object: { ...answer.object, title: 'Renamed' } }
    }, async () => {
      const changed = await answerOf(await fetch(gw.base + url))
      expect(changed.status).toBe(200)
      expect(JSON.parse(changed.body).data.object.title).toBe('Renamed')
      expect(changed.headers.etag).not.toBe(full.headers.etag)
    })
    expect(gw.fastifySaw()).toBe(saw)
  })

  it('hands anything but a plain 200 to the full path with the backend\'s answer: one backend call, the error body, the same request id', async () => {
    const url = '/objects/5'
    await taught(gw, url)
    const cases: [() => Promise<never>, number, string][] = [
      [async () => { throw new DomainError('OBJECT_NOT_FOUND', 'object 5 not found') }, 404, 'OBJECT_NOT_FOUND'],
      [async () => { throw new Error('SQLITE_CORRUPT: /data/objects.sqlite') }, 500, 'INTERNAL_ERROR'],
    ]
    for (const [fail, status, code] of cases) {
      let asked = 0
      const ids: unknown[] = []
      await withGetObject(async (_request, call) => {
        asked += 1
        ids.push(call.metadata.get('x-request-id')[0])
        return fail()
      }, async () => {
        const saw = gw.fastifySaw()
        const res = await fetch(gw.base + url)
        expect(res.status).toBe(status)
        const body = await res.json() as { error: { code: string } }
        expect(body.error.code).toBe(code)
        expect(JSON.stringify(body)).not.toContain('SQLITE')
        expect(res.headers.get('cache-control')).toBe('no-store')
        expect(gw.fastifySaw()).toBe(saw + 1)
        expect(asked).toBe(1)
        expect(ids).toEqual([res.headers.get('x-request-id')])
      })
    }
    // the object is back: the lane still knows the read
    const saw = gw.fastifySaw()
    expect((await fetch(gw.base + url)).status).toBe(200)
    expect(gw.fastifySaw()).toBe(saw)
  })

  it('counts its answers under the route template, as the full path does', async () => {
    const url = '/objects/2'
    await taught(gw, url)
    const labels = { http_route: '/objects/{object_id}', http_request_method: 'GET', http_response_status_code: '200' }
    const before = sampleOf(await scrape(), 'http_server_request_duration_seconds_count', labels)
    const saw = gw.fastifySaw()
    for (let i = 0; i < 3; i++) expect((await fetch(gw.base + url)).status).toBe(200)
    expect(gw.fastifySaw()).toBe(saw)
    expect(sampleOf(await scrape(), 'http_server_request_duration_seconds_count', labels) - before).toBe(3)
  })

  laneRules({ listening, shared: () => gw, teach: taught })

  it('serves at LOG_LEVEL info too, with one access line per request, and is off when the read cache is on (the cached lane serves)', async () => {
    const log = capturedLog('info')
    const logged = await listening({ settings: { logLevel: 'info' }, logger: log.logger })
    await taught(logged, '/objects/3')
    const saw = logged.fastifySaw()
    const res = await fetch(`${logged.base}/objects/3`, { headers: { 'x-request-id': 'rerun-logged' } })
    const body = await res.text()
    expect(logged.fastifySaw()).toBe(saw)
    const lines = accessLines(log.lines)
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatchObject({ reqId: 'rerun-logged', method: 'GET', url: '/objects/3', status: 200, bytes: Buffer.byteLength(body) })
    expect(Object.keys(lines[1] ?? {}).sort()).toEqual(Object.keys(lines[0] ?? {}).sort())
    // with the cache on, once the feed is up, repeated reads stop reaching the backend
    const cached = await listening({ settings: { readCache: true } })
    await vi.waitFor(async () => {
      await fetch(`${cached.base}/objects/3`)
      const reads = backendReads()
      await fetch(`${cached.base}/objects/3`)
      expect(backendReads()).toBe(reads)
    })
  })
})
