import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'
import { buildTestApp } from '../support/test-app.js'
import { signToken } from '../support/tokens.js'
import { must } from '../support/must.js'

const gw = gatewayTest()
let custom: FastifyInstance
beforeAll(async () => {
  custom = await gw.build({
    routing: {
      basePath: '/api', blacklist: ['poster'], objectTypeEndpoints: ['documents'], customEndpoints: ['echo'],
      pathFilters: { GET: ['relations', 'children', 'parents'] }, corsOrigins: ['https://app.example'], trustProxy: true,
    },
  })
})

describe('405 with Allow', () => {
  it.each([
    ['PUT', '/auth', 'GET, POST'],
    ['PATCH', '/objects/3', 'GET, DELETE'],
    ['PATCH', '/objects', 'GET, POST'],
    ['POST', '/objects/3', 'GET, DELETE'],
    ['PUT', '/objects/3', 'GET, DELETE'],
    ['POST', '/objects/3/contents', 'GET'],
    ['DELETE', '/me', 'GET'],
    ['POST', '/', 'GET'],
    ['GET', '/objects/3/ancestors', ''],
    ['GET', '/files/image/a.jpg', 'POST'],
    ['PUT', '/files/image/a.jpg', 'POST'],
    ['DELETE', '/media/4/a.jpg', 'GET'],
    ['POST', '/thumbnails/k/1x1.png', 'GET'],
  ])('%s %s → 405, Allow: %s', async (method, url, allow) => {
    const res = await gw.app.inject({ method: method as 'GET', url, headers: { 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe(allow)
    expect(res.json().error).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED', url: `http://localhost:80${url}` })
  })

  it('unknown methods never reach fastify defaults', async () => {
    const res = await gw.app.inject({ method: 'TRACE' as 'GET', url: '/objects' })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('GET, POST')
  })
})

describe('404 / 400 routing answers', () => {
  it.each([
    ['/unknown', 404, 'ENDPOINT_NOT_FOUND'],
    ['/objects/3/bogus', 400, 'UNKNOWN_PATH_FILTER'],
    ['/objects/3/contents/extra', 400, 'SURPLUS_PATH_SEGMENTS'],
    ['/objects/3/children/abc', 400, 'INVALID_PARAMETER'],
    ['/objects/%E0%A4%A', 400, 'MALFORMED_REQUEST'],
    // percent-escapes that are not UTF-8, in a value and in a name: URLSearchParams would read U+FFFD
    ['/objects?filter[title]=%C0%AF', 400, 'MALFORMED_REQUEST'],
    ['/objects/3?lang=%FF', 400, 'MALFORMED_REQUEST'],
    ['/objects?filter[%E0%A4]=x', 400, 'MALFORMED_REQUEST'],
    ['/changes?events=%ED%A0%80', 400, 'MALFORMED_REQUEST'],
    ['/unknown?x=%FF', 400, 'MALFORMED_REQUEST'],
    // U+0000 in a parameter: as in a write body, no store keeps it
    ['/objects?filter[title]=a%00', 400, 'INVALID_PARAMETER'],
    ['/objects?page=1&filter[tags]=%00', 400, 'INVALID_PARAMETER'],
    ['/changes?ticket=%00', 400, 'INVALID_PARAMETER'],
  ])('GET %s → %i %s', async (url, status, code) => {
    const res = await gw.app.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(status)
    expect(res.json().error.code).toBe(code)
  })

  it.each([
    // U+FFFD sent as such, a lone `%`, `%` without hex digits and valid UTF-8 are read as before
    ['/objects?filter[title]=%EF%BF%BD', '\uFFFD'],
    ['/objects?filter[title]=100%', '100%'],
    ['/objects?filter[title]=%zz%C3%A9', '%zzé'],
    ['/objects?filter[title]=caf%C3%A9+%F0%9F%98%80', 'café 😀'],
  ])('GET %s is read as %j', async (url, title) => {
    const res = await gw.app.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(200)
    expect(res.json().params).toEqual({ 'filter[title]': title })
  })
})

describe('configured table', () => {
  it('listing lives at the base path, hides the blacklisted, shows type and custom endpoints', async () => {
    const res = await custom.inject({ method: 'GET', url: '/api', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example' } })
    expect(res.json()).toMatchObject({
      api: '', url: 'https://api.example/api',
      data: { auth: 'https://api.example/api/auth', documents: 'https://api.example/api/documents', echo: 'https://api.example/api/echo', me: 'https://api.example/api/me', objects: 'https://api.example/api/objects' },
    })
    expect(Object.keys(res.json().data)).toEqual(['auth', 'changes', 'docs', 'documents', 'echo', 'files', 'me', 'objects', 'openapi.json', 'trash'])
  })

  it('without trustProxy, X-Forwarded-* is ignored', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/', headers: { 'x-forwarded-host': 'evil.example' } })
    expect(res.json().url).toBe('http://localhost:80/')
  })

  it('paths outside the base path are 404; the blacklisted endpoint is 405', async () => {
    expect((await custom.inject({ method: 'GET', url: '/objects' })).statusCode).toBe(404)
    const res = await custom.inject({ method: 'GET', url: '/api/poster/3' })
    expect(res.statusCode).toBe(405)
    expect(res.json().error.code).toBe('METHOD_NOT_ALLOWED')
  })

  it('object-type endpoint: the list filters by type and api is the endpoint name', async () => {
    const res = await custom.inject({ method: 'GET', url: '/api/documents' })
    expect(res.json()).toMatchObject({ api: 'documents', data: { objects: [{ id: 3 }] }, paging: { total: 1 } })
    expect((must(gw.backends.calls.filter((c) => c.method === 'objects.ListObjects').at(-1)).request as { filter: unknown }).filter).toEqual({ object_types: ['document'], query: '' })
  })

  it('object-type endpoint: an object of that type 200, another type 404, writes 405', async () => {
    expect((await custom.inject({ method: 'GET', url: '/api/documents/hello' })).json().data.object.id).toBe(3)
    expect((await custom.inject({ method: 'GET', url: '/api/documents/4' })).json().error).toMatchObject({ status: 404, code: 'OBJECT_NOT_FOUND' })
    const post = await custom.inject({ method: 'POST', url: '/api/documents', headers: { 'content-type': 'application/json' }, payload: '{}' })
    expect(post.statusCode).toBe(405)
    expect(post.headers.allow).toBe('GET')
  })

  it('object-type endpoint: enabled GET filters work below it, after the type check', async () => {
    expect((await custom.inject({ method: 'GET', url: '/api/documents/3/relations' })).json().data).toHaveProperty('attach')
    expect((await custom.inject({ method: 'GET', url: '/api/documents/4/relations' })).statusCode).toBe(404)
    expect((await custom.inject({ method: 'GET', url: '/api/documents/3/contents' })).statusCode).toBe(405)
  })

  it('a filter enabled by config (parents) routes to ListTree PARENTS', async () => {
    const res = await custom.inject({ method: 'GET', url: '/api/objects/2/parents' })
    expect(res.statusCode).toBe(200)
    expect((must(gw.backends.calls.filter((c) => c.method === 'tree.ListTree').at(-1)).request as { kind: string }).kind).toBe('PARENTS')
  })

  it('custom endpoint answers in the envelope with the caller identity', async () => {
    const token = await signToken({ id: 9, groups: ['editor'] })
    const res = await custom.inject({ method: 'POST', url: '/api/echo/a/b?x=1', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: '{"hello":1}' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      api: 'echo', method: 'post', params: { x: '1' },
      data: { method: 'post', segments: ['a', 'b'], query: { x: '1' }, body: { hello: 1 }, caller: { user_id: 9, groups: ['editor'] } },
    })
  })
})

describe('CORS', () => {
  it('default: any origin', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/objects', headers: { origin: 'https://x.example' } })
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(String(res.headers['access-control-expose-headers'])).toContain('ETag')
  })

  it('errors carry CORS headers too', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/nope', headers: { origin: 'https://x.example' } })
    expect(res.headers['access-control-allow-origin']).toBe('*')
  })

  it('preflight answers the allowed methods and headers', async () => {
    const res = await gw.app.inject({ method: 'OPTIONS', url: '/objects', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } })
    expect(res.statusCode).toBe(204)
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST')
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization')
  })

  it('configured origins: only those are allowed', async () => {
    const ok = await custom.inject({ method: 'GET', url: '/api', headers: { origin: 'https://app.example' } })
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example')
    const other = await custom.inject({ method: 'GET', url: '/api', headers: { origin: 'https://evil.example' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('probes', () => {
  it('GET /healthz → 200 {status: ok}, outside the base path', async () => {
    const res = await custom.inject({ method: 'GET', url: '/healthz' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
  })

  it('GET /readyz → 200 when every backend answers SERVING', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok' })
  })

  it('GET /readyz → 503 naming the failing backends', async () => {
    const app = await buildTestApp(gw.backends, { readiness: { objects: '127.0.0.1:1', auth: '127.0.0.1:2' } })
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' })
      expect(res.statusCode).toBe(503)
      expect(res.json().error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', details: { failing: ['objects', 'auth'] } })
    } finally {
      await app.close()
    }
  })
})
