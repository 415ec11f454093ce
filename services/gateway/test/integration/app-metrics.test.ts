import { beforeAll, describe, expect, it, vi } from 'vitest'
import { compileRoutes } from '../../src/http/route-table.js'
import { validateRoutingConfig } from '../../src/routing/config-file.js'
import { customMethods, BUILT_IN_CUSTOM_ENDPOINTS } from '../../src/http/handlers/custom/index.js'
import { sampleOf, scrape } from '../support/exposition.js'
import { IMAGE_KEY, signThumbnail } from '../support/fake-poster.js'
import { buildTestApp } from '../support/test-app.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'
import { must } from '../support/must.js'

const gw = gatewayTest({ settings: { readCache: true, thumbnailCacheBytes: 1024 * 1024 } })
beforeAll(async () => {
  await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1))
})

const DURATION = 'http_server_request_duration_seconds_count'

/** How much each request counter moved while `act` ran. */
async function delta (act: () => Promise<unknown>): Promise<(name: string, labels?: Record<string, string>) => number> {
  const before = await scrape()
  await act()
  const after = await scrape()
  return (name, labels = {}) => sampleOf(after, name, labels) - sampleOf(before, name, labels)
}

const get = (url: string, method: 'GET' | 'HEAD' | 'PATCH' | 'POST' = 'GET', headers: Record<string, string> = {}) =>
  gw.app.inject({ method, url, headers })

describe('http_server_request_duration_seconds', () => {
  it('counts each request under its route template, method and status: reads, backend 404s, unknown paths, 405s and probes', async () => {
    const moved = await delta(async () => {
      expect((await get('/objects/3')).statusCode).toBe(200)
      expect((await get('/objects/4?lang=en')).statusCode).toBe(200)
      expect((await get('/objects/1/children')).statusCode).toBe(200)
      expect((await get('/objects/3/children')).statusCode).toBe(400)
      expect((await get('/objects/3', 'HEAD')).statusCode).toBe(200)
      expect((await get('/objects/99')).statusCode).toBe(404)
      expect((await get('/nothing/here')).statusCode).toBe(404)
      expect((await get('/objects/3', 'PATCH')).statusCode).toBe(405)
      expect((await get('/healthz')).statusCode).toBe(200)
      expect((await get('/readyz')).statusCode).toBe(200)
    })
    const route = (method: string, route: string, status: number) =>
      moved(DURATION, { http_request_method: method, http_route: route, http_response_status_code: String(status) })
    // the read cache answers the second GET /objects/3 (the first may be a hit or a miss): counted all the same
    expect(route('GET', '/objects/{object_id}', 200)).toBe(2)
    expect(route('GET', '/objects/{object_id}/children', 200)).toBe(1)
    expect(route('GET', '/objects/{object_id}/children', 400)).toBe(1)
    expect(route('HEAD', '/objects/{object_id}', 200)).toBe(1)
    expect(route('GET', '/objects/{object_id}', 404)).toBe(1)
    expect(route('GET', 'unmatched', 404)).toBe(1)
    expect(route('PATCH', 'unmatched', 405)).toBe(1)
    expect(route('GET', '/healthz', 200)).toBe(1)
    expect(route('GET', '/readyz', 200)).toBe(1)
    expect(moved(DURATION)).toBe(10)
  })

  it('a thumbnail answered from the gateway cache is counted under the thumbnails route', async () => {
    const path = `${IMAGE_KEY}/120x80.jpg`
    const url = `/thumbnails/${path}?sig=${signThumbnail(path, '')}`
    expect((await get(url)).statusCode).toBe(200)
    const calls = gw.backends.calls.length
    const moved = await delta(async () => expect((await get(url)).statusCode).toBe(200))
    expect(gw.backends.calls.length).toBe(calls) // the cache answered
    expect(moved(DURATION, { http_request_method: 'GET', http_route: '/thumbnails/{key}/{file}', http_response_status_code: '200' })).toBe(1)
  })

  it('never uses a raw path, id or query as a route: every route is a template of the route table, a probe or unmatched', async () => {
    await get('/objects/123456?page=2&secret=x')
    await get('/objects/some-nickname/relations/attach/5')
    await get('/%E0%A4%A')
    await get('/../../etc/passwd')
    const table = compileRoutes(validateRoutingConfig({}, new Set(BUILT_IN_CUSTOM_ENDPOINTS.keys())), customMethods(BUILT_IN_CUSTOM_ENDPOINTS))
    const allowed = new Set([...table.routes.map((op) => op.label), '/healthz', '/readyz', 'unmatched'])
    const routes = new Set((await scrape()).filter((s) => s.name === DURATION).map((s) => must(s.labels.http_route)))
    expect(routes.size).toBeGreaterThan(3)
    for (const r of routes) expect(allowed, r).toContain(r)
  })

  it('below a base path, the template starts with it', async () => {
    const based = await buildTestApp(gw.backends, { routing: { basePath: '/api/v1' } })
    try {
      const moved = await delta(async () => {
        expect((await based.inject({ method: 'GET', url: '/api/v1/objects/3' })).statusCode).toBe(200)
        expect((await based.inject({ method: 'GET', url: '/api/v1' })).statusCode).toBe(200)
      })
      expect(moved(DURATION, { http_route: '/api/v1/objects/{object_id}', http_response_status_code: '200' })).toBe(1)
      expect(moved(DURATION, { http_route: '/api/v1', http_response_status_code: '200' })).toBe(1)
    } finally {
      await based.close()
    }
  })

  it('each backend call the gateway makes is timed as an RPC client call', async () => {
    const moved = await delta(async () => {
      await get('/objects/1/children?page=3')
      await get('/objects/99')
    })
    expect(moved('rpc_client_call_duration_seconds_count', {
      rpc_system: 'grpc', rpc_service: 'content.v1.TreeService', rpc_method: 'ListTree', rpc_grpc_status_code: '0',
    })).toBe(1)
    expect(moved('rpc_client_call_duration_seconds_count', { rpc_service: 'content.v1.ObjectService', rpc_method: 'GetObject', rpc_grpc_status_code: '5' })).toBe(1)
  })
})

describe('read cache metrics', () => {
  const url = '/objects/5?page=1'
  const cacheMetric = (name: string) => `content_read_cache_${name}`

  it('a first read misses and fills an entry; the same read again hits', async () => {
    gw.backends.emitChange({ reset: true }) // start empty
    await vi.waitFor(async () => expect((await scrape()).find((s) => s.name === cacheMetric('entries'))?.value).toBe(0))
    const first = await delta(() => get(url))
    expect(first(cacheMetric('misses_total'))).toBe(1)
    expect(first(cacheMetric('hits_total'))).toBe(0)
    expect(first(cacheMetric('entries'))).toBe(1)
    const second = await delta(() => get(url))
    expect(second(cacheMetric('hits_total'))).toBe(1)
    expect(second(cacheMetric('misses_total'))).toBe(0)
    expect(second(cacheMetric('entries'))).toBe(0)
    const uncacheable = await delta(() => get('/objects/5', 'POST', { authorization: 'Bearer x' }))
    expect(uncacheable(cacheMetric('hits_total')) + uncacheable(cacheMetric('misses_total'))).toBe(0)
  })

  it('a write that fails in transit invalidates everything with reason write', async () => {
    await get(url)
    const original = gw.backends.objects.SaveObject
    gw.backends.objects.SaveObject = async () => { throw new Error('lost') }
    try {
      const moved = await delta(async () => {
        const res = await gw.app.inject({
          method: 'POST', url: '/objects', payload: '{"data":{"id":3}}',
          headers: { authorization: `Bearer ${await signToken({ id: 7, groups: ['editor'] })}`, 'content-type': 'application/json' },
        })
        expect(res.statusCode).toBe(500)
      })
      expect(moved(cacheMetric('invalidations_total'), { reason: 'write' })).toBe(1)
    } finally {
      gw.backends.objects.SaveObject = original
    }
    expect((await scrape()).find((s) => s.name === cacheMetric('entries'))?.value).toBe(0)
  })

  it('a change event affecting a cached answer invalidates with reason change', async () => {
    await get(url)
    const moved = await delta(async () => {
      gw.backends.emitChange({ affects: [5] })
      await vi.waitFor(async () => expect((await scrape()).find((s) => s.name === cacheMetric('entries'))?.value).toBe(0))
    })
    expect(moved(cacheMetric('invalidations_total'), { reason: 'change' })).toBe(1)
    expect(moved(cacheMetric('invalidations_total'), { reason: 'reset' })).toBe(0)
  })

  it('while the change feed is down reads are misses; when it resumes at the same position, entries are kept', async () => {
    await get(url)
    const original = gw.backends.objects.WatchChanges
    gw.backends.objects.WatchChanges = ((call: { emit(e: string, v: unknown): void }) => {
      call.emit('error', { code: 14, details: 'down' })
    }) as unknown as typeof original
    const moved = await delta(async () => {
      try {
        gw.backends.breakFeed()
        // the gateway notices the broken stream, then reads miss
        await vi.waitFor(async () => expect((await delta(() => get(url)))(cacheMetric('misses_total'))).toBe(1))
      } finally {
        gw.backends.objects.WatchChanges = original
      }
    })
    expect(moved(cacheMetric('misses_total'))).toBeGreaterThanOrEqual(1)
    expect(moved(cacheMetric('invalidations_total'), { reason: 'reset' })).toBe(0)
    await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1), { timeout: 3000 })
    await vi.waitFor(async () => expect((await delta(() => get(url)))(cacheMetric('hits_total'))).toBe(1))
  })
})
