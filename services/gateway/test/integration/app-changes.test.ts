import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DomainError } from '@content/platform'
import { describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

const gw = gatewayTest()

const LIVE = { rules: { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['editor'] }, retryAfterSeconds: 5, recentEvents: 10, pingMs: 60_000, maxBufferBytes: 1024 ** 2, flushMs: 0, sessionCheckMs: 60_000 }

/** A stream opened over a socket, its answer's head read (a stream never ends by itself). */
const openStream = (port: number, path: string): Promise<{ req: ClientRequest, res: IncomingMessage }> => new Promise((resolve, reject) => {
  const req = httpRequest({ host: '127.0.0.1', port, path }, (res) => resolve({ req, res }))
  req.on('error', reject)
  req.end()
})

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
          ...LIVE, maxStreams: 0, maxPerCaller: 50,
        },
      },
    })
    const res = await full.inject({ method: 'GET', url: '/changes?ticket=issued-elsewhere' })
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.json().error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' })
    expect(gw.backends.calls.map((c) => c.method)).not.toContain('auth.RedeemStreamTicket')
  })

  it('a caller at its bound gets its 429 before its ticket is used, and the ticket then opens a stream once there is room', async () => {
    const app = await gw.build({ settings: { live: { ...LIVE, maxStreams: 10, maxPerCaller: 1 } } })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const port = (app.server.address() as AddressInfo).port
    // tickets t1 and t2, both user 5's, each used once
    const used = new Set<string>()
    const redeem = gw.backends.auth.RedeemStreamTicket
    gw.backends.auth.RedeemStreamTicket = async (req) => {
      if (used.has(req.ticket) || !/^t\d$/.test(req.ticket)) throw new DomainError('TICKET_INVALID', 'the ticket is unknown, used or expired')
      if (!req.keep) used.add(req.ticket)
      return { caller: { user_id: 5, groups: [], may_write: false }, session: 'five' }
    }
    const redeemed = () => gw.backends.calls.filter((c) => c.method === 'auth.RedeemStreamTicket').map((c) => c.request as { ticket: string, keep: boolean })
    try {
      const first = await openStream(port, '/changes?ticket=t1')
      expect(first.res.statusCode).toBe(200)
      expect(redeemed()).toEqual([expect.objectContaining({ ticket: 't1', keep: false })])
      const refused = await app.inject({ method: 'GET', url: '/changes?ticket=t2' })
      expect(refused.statusCode).toBe(429)
      expect(refused.headers['retry-after']).toBe('5')
      expect(refused.json().error).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' })
      expect(used.has('t2')).toBe(false)
      first.req.destroy()
      await expect.poll(async () => (await app.inject({ method: 'HEAD', url: '/changes?ticket=t2' })).statusCode).toBe(200)
      gw.backends.calls.length = 0
      const second = await openStream(port, '/changes?ticket=t2')
      expect(second.res.statusCode).toBe(200)
      // nobody at the bound any more: one call, which uses the ticket
      expect(redeemed()).toEqual([expect.objectContaining({ ticket: 't2', keep: false })])
      second.req.destroy()
    } finally {
      gw.backends.auth.RedeemStreamTicket = redeem
    }
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
