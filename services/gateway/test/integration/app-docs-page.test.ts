import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

const gw = gatewayTest()
let based: FastifyInstance
beforeAll(async () => { based = await gw.build({ routing: { basePath: '/api/v1' } }) })

describe('the reference page and its assets', () => {
  it('the page names its assets and the document below the base path, under a strict CSP', async () => {
    for (const [app, base] of [[gw.app, ''], [based, '/api/v1']] as const) {
      const page = await app.inject({ method: 'GET', url: `${base}/docs` })
      expect(page.statusCode).toBe(200)
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(page.headers['content-security-policy']).toMatch(/script-src 'self';/)
      expect(page.headers['x-content-type-options']).toBe('nosniff')
      for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) expect(page.body).toContain(`"${base}/docs/assets/${asset}"`)
      const init = await app.inject({ method: 'GET', url: `${base}/docs/assets/init.js` })
      expect(init.body).toContain(`"url":"${base}/openapi.json"`)
    }
  })

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'], ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['init.js', 'text/javascript; charset=utf-8'], ['favicon-32x32.png', 'image/png'],
  ])('%s is served with its type, an ETag, 304 on If-None-Match and headers only for HEAD', async (asset, type) => {
    const url = `/docs/assets/${asset}`
    const res = await gw.app.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe(type)
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length)
    const etag = String(res.headers.etag)
    expect((await gw.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode).toBe(304)
    const head = await gw.app.inject({ method: 'HEAD', url })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
  })

  it.each(['package.json', '..%2Fpackage.json', '..%2F..%2Fpackage.json', 'index.html', 'swagger-ui.js.map', 'a%00b', '%2Fetc%2Fpasswd'])(
    'any other name (%s) is 404 ENDPOINT_NOT_FOUND, never a file read', async (name) => {
      const res = await gw.app.inject({ method: 'GET', url: `/docs/assets/${name}` })
      expect(res.statusCode).toBe(404)
      expect(res.json().error.code).toBe('ENDPOINT_NOT_FOUND')
    })

  it('pages answer GET and HEAD only; unknown pages are 404, surplus segments 400', async () => {
    const post = await gw.app.inject({ method: 'POST', url: '/docs', payload: {} })
    expect(post.statusCode).toBe(405)
    expect(post.headers.allow).toBe('GET')
    expect((await gw.app.inject({ method: 'GET', url: '/docs/nothing' })).statusCode).toBe(404)
    expect((await gw.app.inject({ method: 'GET', url: '/docs/assets/a/b' })).statusCode).toBe(404)
    expect((await gw.app.inject({ method: 'GET', url: '/openapi.json/x' })).json().error.code).toBe('SURPLUS_PATH_SEGMENTS')
    expect((await gw.app.inject({ method: 'GET', url: '/docs?x=1' })).json().error.code).toBe('UNKNOWN_QUERY_PARAMETER')
  })

  it('the errors page has a row per code, and GET /openapi.json has an ETag and answers 304', async () => {
    const errors = await gw.app.inject({ method: 'GET', url: '/docs/errors' })
    expect(errors.body).toContain('<tr id="OBJECT_NOT_FOUND">')
    const doc = await gw.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(doc.json().openapi).toBe('3.1.0')
    expect((await gw.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'if-none-match': String(doc.headers.etag) } })).statusCode).toBe(304)
  })
})
