import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest({ settings: { idleTimeoutMs: 800 } })
let port: number
beforeAll(async () => {
  await gw.app.listen({ host: '127.0.0.1', port: 0 })
  port = (gw.app.server.address() as { port: number }).port
})

/** Sends raw bytes and collects the answer until the server closes (or `waitMs` passes). */
function raw (bytes: string, waitMs = 5_000): Promise<{ status: number, headers: string, body: string, ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect({ port, host: '127.0.0.1' })
    let got = ''
    const done = () => {
      const [head = '', body = ''] = got.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body, ms: Date.now() - started })
    }
    socket.on('data', (c) => { got += String(c) })
    socket.on('close', done)
    socket.on('error', () => {})
    socket.setTimeout(waitMs, () => socket.destroy())
    socket.write(bytes)
  })
}

const errorOf = (body: string) => (JSON.parse(body) as { error: { status: number, code: string } }).error

describe('HTTP edge cases answered in the error shape', () => {
  it('when an HTTP/1.1 request has no Host, then 400 with the error body', async () => {
    const res = await raw('GET /objects/1 HTTP/1.1\r\nConnection: close\r\n\r\n')
    expect(res.status).toBe(400)
    expect(errorOf(res.body)).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST' })
  })

  it('when Host is sent twice or is no host and port, then 400 with the error body, and no URL is built from it', async () => {
    for (const hosts of [['a.example', 'b.example'], ['evil.example/x'], ['user@evil.example'], ['a:b:c'], ['[::1']]) {
      const res = await raw(`GET /objects/1 HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Connection: close\r\n\r\n`)
      expect(res.status, hosts.join(' + ')).toBe(400)
      expect(errorOf(res.body)).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST', message: 'the Host header must be one host with an optional port' })
      expect(res.body).not.toContain('evil')
    }
    const head = await raw('HEAD /objects/1 HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n')
    expect([head.status, head.body]).toEqual([400, ''])
    // one valid Host (an IPv6 address, a port) is answered
    const ok = await raw('GET / HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n')
    expect(ok.status).toBe(200)
    expect(ok.body).toContain('"url":"http://[::1]:8080/"')
  })

  it('when a header is sent twice, then its values are joined: two credentials are no token, even the same one twice', async () => {
    const token = await signToken({ groups: ['members'] })
    const once = await raw(`GET /objects/1 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`)
    expect(once.status).toBe(200)
    const res = await raw(`GET /objects/1 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`)
    expect(res.status).toBe(401)
    expect(errorOf(res.body)).toMatchObject({ code: 'TOKEN_INVALID' })
  })

  it('when a trusted proxy forwards a host or scheme that makes no URL, then 400; what it forwards well is used', async () => {
    const proxied = await gw.build({ routing: { trustProxy: true } })
    const get = (headers: Record<string, string>) => proxied.inject({ method: 'GET', url: '/', headers: { host: 'gw.internal', ...headers } })
    for (const [headers, message] of [
      [{ 'x-forwarded-host': 'evil.example/x' }, 'the X-Forwarded-Host header must end with a host with an optional port'],
      [{ 'x-forwarded-host': 'public.example, a b' }, 'the X-Forwarded-Host header must end with a host with an optional port'],
      [{ 'x-forwarded-proto': 'javascript' }, 'the X-Forwarded-Proto header must end with http or https'],
    ] as const) {
      const res = await get(headers)
      expect(res.statusCode, JSON.stringify(headers)).toBe(400)
      expect(res.json().error).toMatchObject({ code: 'MALFORMED_REQUEST', message })
    }
    const res = await get({ 'x-forwarded-host': 'evil/x, public.example', 'x-forwarded-proto': 'http, https' })
    expect(res.statusCode).toBe(200)
    expect(res.json().url).toBe('https://public.example/')
  })

  it('when a HEAD has a target that does not parse, then 400 headers and no body', async () => {
    const res = await raw('HEAD ?x=1 HTTP/1.1\r\nHost: a\r\n\r\n')
    expect(res.status).toBe(400)
    expect(res.headers).toMatch(/content-length: \d+/)
    expect(res.body).toBe('')
    const get = await raw('GET ?x=1 HTTP/1.1\r\nHost: a\r\n\r\n')
    expect(errorOf(get.body)).toMatchObject({ status: 400, code: 'MALFORMED_REQUEST' })
  })

  it('when a CONNECT comes, then 405 with Allow and the error body', async () => {
    const res = await raw('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n')
    expect(res.status).toBe(405)
    expect(res.headers).toMatch(/allow: get, head, post, put, delete/)
    expect(errorOf(res.body)).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' })
  })

  it('when a body is shorter than its Content-Length, then 408 with the error body once the connection idles', async () => {
    const res = await raw('POST /objects HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"data":{')
    expect(res.status).toBe(408)
    expect(errorOf(res.body)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' })
    expect(res.ms).toBeLessThan(3_000)
  })

  it('when the headers never finish, then 408 with the error body', async () => {
    const res = await raw('GET /objects/1 HTTP/1.1\r\nHost: a\r\nX-Slow: 1\r\n')
    expect(res.status).toBe(408)
    expect(errorOf(res.body)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' })
    expect(res.ms).toBeLessThan(4_000)
  })

  it('when a connection idles between requests, then it is closed without an answer', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n')
    expect(res.status).toBe(200)
    expect(res.body).not.toMatch(/REQUEST_TIMEOUT/)
  })
})
