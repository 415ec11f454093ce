import { connect } from 'node:net'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { sampleOf, scrape } from '../support/exposition.js'
import { gatewayTest } from '../support/gateway-test.js'
import { answerOf, backendReads as readsOf, listeningApp, type Listening } from '../support/lane-app.js'
import type { TestAppOptions } from '../support/test-app.js'
import { laneRules } from '../support/lane-rules.js'
import { signToken } from '../support/tokens.js'
import { accessLines, capturedLog } from '../support/log-lines.js'

const setup = gatewayTest(null)
/** the change-feed streams of the gateways made so far */
let streams = 0

/** A gateway with the read cache on, once its change feed is up. */
async function listening (options: TestAppOptions = {}): Promise<Listening> {
  const gateway = await listeningApp(setup.backends, { ...options, settings: { readCache: true, ...options.settings } })
  setup.closing(gateway.app)
  const open = ++streams
  await vi.waitFor(() => expect(setup.backends.openStreams()).toBe(open))
  return gateway
}

let gw: Listening
beforeAll(async () => {
  gw = await listening()
})

const backendReads = () => readsOf(setup.backends)

/** `request` sent as written to `gw`, and what came back until the server closed (or a second passed). */
const raw = (request: string) => new Promise<string>((resolve, reject) => {
  const socket = connect(Number(new URL(gw.base).port), '127.0.0.1', () => socket.write(request))
  let text = ''
  socket.on('data', (chunk) => { text += chunk })
  socket.on('end', () => resolve(text))
  socket.on('error', reject)
  setTimeout(() => { socket.destroy(); resolve(text) }, 1000)
})

/** Reads `url` until the lane answers it (a miss, a cache hit through fastify that teaches the lane, then the lane). */
async function warm (target: Listening, url: string, headers: Record<string, string> = {}) {
  const miss = await fetch(target.base + url, { headers })
  expect(miss.status).toBe(200)
  const viaFastify = await answerOf(await fetch(target.base + url, { headers }))
  return viaFastify
}

describe('the cached lane', () => {
  it('answers a repeated anonymous read before fastify, with the bytes and headers the full path answered, each with its own request id', async () => {
    const url = '/objects/3?lang=en'
    const full = await warm(gw, url)
    const saw = gw.fastifySaw()
    const reads = backendReads()
    const first = await fetch(gw.base + url)
    const second = await fetch(gw.base + url, { headers: { 'x-request-id': 'client-chosen-id' } })
    const third = await fetch(gw.base + url, { headers: { 'x-request-id': 'tab\there' } })
    expect(gw.fastifySaw()).toBe(saw)
    expect(backendReads()).toBe(reads)
    for (const res of [first, second, third]) expect(await answerOf(res)).toEqual(full)
    expect(full.headers).toMatchObject({ 'cache-control': 'no-cache', 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' })
    expect(full.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(second.headers.get('x-request-id')).toBe('client-chosen-id')
    // an id that is not safe everywhere it goes is replaced, as the full path does
    expect(third.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(first.headers.get('x-request-id')).not.toBe(third.headers.get('x-request-id'))
  })

  it('counts its answers under the route template, as the full path does', async () => {
    const url = '/objects/4'
    await warm(gw, url)
    const labels = { http_route: '/objects/{object_id}', http_request_method: 'GET', http_response_status_code: '200' }
    const before = sampleOf(await scrape(), 'http_server_request_duration_seconds_count', labels)
    const hitsBefore = sampleOf(await scrape(), 'content_read_cache_hits_total')
    const saw = gw.fastifySaw()
    for (let i = 0; i < 3; i++) expect((await fetch(gw.base + url)).status).toBe(200)
    expect(gw.fastifySaw()).toBe(saw)
    const after = await scrape()
    expect(sampleOf(after, 'http_server_request_duration_seconds_count', labels) - before).toBe(3)
    expect(sampleOf(after, 'content_read_cache_hits_total') - hitsBefore).toBe(3)
  })

  it('never serves an answer a change dropped: the next read takes the full path to the backend', async () => {
    const url = '/objects/5'
    await warm(gw, url)
    const reads = backendReads()
    expect((await fetch(gw.base + url)).status).toBe(200)
    expect(backendReads()).toBe(reads)
    setup.backends.emitChange({ affects: [5] })
    await vi.waitFor(async () => {
      const saw = gw.fastifySaw()
      await fetch(gw.base + url)
      expect(gw.fastifySaw()).toBe(saw + 1)
    })
    expect(backendReads()).toBe(reads + 1)
  })

  laneRules({ listening, shared: () => gw, teach: warm })

  it('leaves another token of the same groups to the full path, which answers it from the same cache entry', async () => {
    const url = '/objects/hello'
    const full = await warm(gw, url, { authorization: `Bearer ${await signToken({ groups: ['members'] })}` })
    const saw = gw.fastifySaw()
    const other = { authorization: `Bearer ${await signToken({ id: 8, groups: ['members'] })}` }
    const reads = backendReads()
    expect(await answerOf(await fetch(gw.base + url, { headers: other }))).toEqual(full)
    expect(gw.fastifySaw()).toBe(saw + 1)
    expect(backendReads()).toBe(reads)
  })

  it('learns the headers each Origin gets, and each trusted X-Forwarded-Host its own URLs', async () => {
    const proxied = await listening({ routing: { corsOrigins: ['https://app.example'], trustProxy: true } })
    const url = '/objects/3'
    const variants: Record<string, string>[] = [{ origin: 'https://app.example' }, { origin: 'https://elsewhere.example' }, {}, { 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' }]
    for (const headers of variants) {
      const full = await warm(proxied, url, headers)
      const saw = proxied.fastifySaw()
      expect(await answerOf(await fetch(proxied.base + url, { headers }))).toEqual(full)
      expect(proxied.fastifySaw()).toBe(saw)
    }
    const allowed = await fetch(proxied.base + url, { headers: { origin: 'https://app.example' } })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(allowed.headers.get('vary')).toBe('Origin')
    expect((await fetch(proxied.base + url, { headers: { origin: 'https://elsewhere.example' } })).headers.get('access-control-allow-origin')).toBeNull()
    const forwarded = await fetch(proxied.base + url, { headers: { 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' } })
    expect(await forwarded.text()).toContain('"url":"https://public.example/objects/3"')
  })

  it('still refuses an HTTP/1.1 request without Host where an HTTP/1.0 one without it was answered', async () => {
    // HTTP/1.0 needs no Host: answered, then answered from the cache (which teaches the lane)
    for (let i = 0; i < 3; i++) expect(await raw('GET /objects/4?lang=it HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /)
    expect(await raw('GET /objects/4?lang=it HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /)
  })

  it('refuses a request with two Host lines although the first one\'s read was learned', async () => {
    const one = 'GET /objects/4?lang=fr HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n'
    for (let i = 0; i < 3; i++) expect(await raw(one)).toMatch(/^HTTP\/1\.1 200 /)
    const saw = gw.fastifySaw()
    expect(await raw(one)).toMatch(/^HTTP\/1\.1 200 /)
    expect(gw.fastifySaw()).toBe(saw)
    expect(await raw('GET /objects/4?lang=fr HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /)
  })

  it('serves at LOG_LEVEL info too, writing the one access line the full path writes, with a redacted URL', async () => {
    const log = capturedLog('info')
    const logged = await listening({ settings: { logLevel: 'info' }, logger: log.logger })
    // a token in the query is a caller's token like any (signed here), and still never logged
    const token = await signToken({ groups: ['members'] })
    const url = `/objects/3?access_token=${token}`
    await warm(logged, url)
    const saw = logged.fastifySaw()
    const before = accessLines(log.lines).length
    const res = await fetch(`${logged.base}${url}`, { headers: { 'x-request-id': 'lane-logged' } })
    const body = await res.text()
    expect(logged.fastifySaw()).toBe(saw)
    const lines = accessLines(log.lines)
    expect(lines).toHaveLength(before + 1)
    const full = lines[before - 1]
    const lane = lines[before]
    expect(lane).toMatchObject({ level: 30, service: 'gateway', reqId: 'lane-logged', method: 'GET', url: '/objects/3?access_token=[Redacted]', status: 200, bytes: Buffer.byteLength(body) })
    expect(typeof lane?.ms).toBe('number')
    // the same fields as the full path's line of the same read
    expect(Object.keys(lane ?? {}).sort()).toEqual(Object.keys(full ?? {}).sort())
    expect(full).toMatchObject({ url: '/objects/3?access_token=[Redacted]', status: 200, bytes: Buffer.byteLength(body) })
    expect(log.text()).not.toContain(token.slice(10))
  })
})
