import { describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

const gw = gatewayTest()

describe('GET /changes', () => {
  it('a parameter it does not take is a 400 naming it, before a present but invalid token (decisions §2 precedence)', async () => {
    for (const [url, headers] of [['/changes?foo=1', { authorization: 'Bearer not-a-token' }], ['/changes?access_token=not-a-token&foo=1', {}]] as const) {
      const res = await gw.app.inject({ method: 'GET', url, headers })
      expect(res.statusCode, url).toBe(400)
      expect(res.json().error, url).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'foo' } })
    }
    const res = await gw.app.inject({ method: 'GET', url: '/changes?status=published', headers: { authorization: 'Bearer not-a-token' } })
    expect(res.json().error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter: 'status' } })
  })

  it('with good parameters, a present but invalid token is still a 401', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/changes?events=object.created', headers: { authorization: 'Bearer not-a-token' } })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('TOKEN_INVALID')
  })

  it('a gateway with no room for another stream answers 503 before it uses up a ticket, which another gateway may then take', async () => {
    const full = await gw.build({
      settings: {
        live: {
          rules: { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['editor'] },
          maxStreams: 0, maxPerCaller: 50, retryAfterSeconds: 5, recentEvents: 10, pingMs: 60_000, maxBufferBytes: 1024 ** 2, flushMs: 0, sessionCheckMs: 60_000,
        },
      },
    })
    const res = await full.inject({ method: 'GET', url: '/changes?ticket=issued-elsewhere' })
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.json().error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' })
    expect(gw.backends.calls.map((c) => c.method)).not.toContain('auth.RedeemStreamTicket')
  })

  it('a page of another origin may resume a stream with Last-Event-ID: the preflight allows the header', async () => {
    const res = await gw.app.inject({
      method: 'OPTIONS', url: '/changes',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,last-event-id' },
    })
    expect(res.statusCode).toBe(204)
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'last-event-id']))
  })
})
