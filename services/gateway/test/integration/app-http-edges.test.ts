import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

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
