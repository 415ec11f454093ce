import { connect, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

// Every answer the framework or Node would otherwise write with a body of its own leaves in the error body
// of decisions §2: all six keys, a code of the catalogue, `more_info` on the errors page where a URL is known.
const gw = gatewayTest({ settings: { idleTimeoutMs: 800 }, routing: { bodyLimit: 1024 } })

interface Answer { status: number, headers: string, body: string }

/** A socket to `app`, collecting what comes back until the server closes it or `waitMs` passes. */
function open (app: FastifyInstance, waitMs = 5_000): { socket: Socket, answer: Promise<Answer> } {
  const { port } = app.server.address() as { port: number }
  const socket = connect({ port, host: '127.0.0.1' })
  let got = ''
  socket.on('data', (c) => { got += String(c) })
  socket.on('error', () => {})
  socket.setTimeout(waitMs, () => socket.destroy())
  const answer = new Promise<Answer>((resolve) => socket.on('close', () => {
    const [head = '', body = ''] = got.split('\r\n\r\n')
    resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body })
  }))
  return { socket, answer }
}

async function listening (app: FastifyInstance): Promise<FastifyInstance> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

async function raw (bytes: string): Promise<Answer> {
  const { socket, answer } = open(await listening(gw.app))
  socket.write(bytes)
  return answer
}

/** The whole §2 body, checked key by key: nothing of fastify's `{error, message, statusCode}` left. */
function expectErrorBody (body: string, status: number, code: string, url: string | RegExp): void {
  const parsed = JSON.parse(body) as Record<string, unknown>
  expect(Object.keys(parsed)).toEqual(['error'])
  expect(parsed.error).toEqual({
    status, code, message: expect.any(String), details: null, more_info: expect.stringMatching(new RegExp(`/docs/errors#${code}$`)),
    url: typeof url === 'string' ? url : expect.stringMatching(url),
  })
}

describe('answers fastify would write itself', () => {
  it.each<[string, string, number, string]>([
    ['an unknown route outside the base path', 'GET /nowhere/at/all HTTP/1.1\r\nHost: gw.test\r\nConnection: close\r\n\r\n', 404, 'ENDPOINT_NOT_FOUND'],
    ['an unknown method', 'PATCH /objects/1 HTTP/1.1\r\nHost: gw.test\r\nConnection: close\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
    ['malformed JSON', 'POST /objects HTTP/1.1\r\nHost: gw.test\r\nContent-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{"data":{', 400, 'MALFORMED_JSON'],
    ['a body of a media type no parser takes', 'POST /objects HTTP/1.1\r\nHost: gw.test\r\nContent-Type: text/csv\r\nContent-Length: 3\r\nConnection: close\r\n\r\na,b', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a JSON body over the limit', `POST /objects HTTP/1.1\r\nHost: gw.test\r\nContent-Type: application/json\r\nContent-Length: 2000\r\nConnection: close\r\n\r\n${' '.repeat(2000)}`, 413, 'PAYLOAD_TOO_LARGE'],
    ['bad percent-encoding in the path', 'GET /objects/%E0%A4%A HTTP/1.1\r\nHost: gw.test\r\nConnection: close\r\n\r\n', 400, 'MALFORMED_REQUEST'],
  ])('when %s comes, then the error body', async (_label, bytes, status, code) => {
    const res = await raw(bytes)
    expect(res.status).toBe(status)
    expect(res.headers).toMatch(/content-type: application\/json/)
    expectErrorBody(res.body, status, code, /^http:\/\/gw\.test\//)
  })
})

describe('answers Node would write itself', () => {
  const bare = (body: string, status: number, code: string) =>
    expect(JSON.parse(body)).toEqual({ error: { status, code, message: expect.any(String), details: null, more_info: null, url: '' } })

  it('when the header block is too large, then 431 in the error body', async () => {
    const res = await raw(`GET /objects?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: gw.test\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`)
    expect(res.status).toBe(431)
    bare(res.body, 431, 'HEADERS_TOO_LARGE')
  })

  it('when the request line does not parse, then 400 in the error body', async () => {
    const res = await raw('GET /objects/1 HTTP/9\r\n\r\n')
    expect(res.status).toBe(400)
    bare(res.body, 400, 'MALFORMED_REQUEST')
  })

  it('when an Expect other than 100-continue comes, then 417 in the error body', async () => {
    const res = await raw('POST /objects HTTP/1.1\r\nHost: gw.test\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
    expect(res.status).toBe(417)
    expect(res.headers).toMatch(/x-request-id: /)
    bare(res.body, 417, 'EXPECTATION_FAILED')
  })

  it('when the headers never finish, then 408 in the error body', async () => {
    const res = await raw('GET /objects/1 HTTP/1.1\r\nHost: gw.test\r\n')
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', details: null })
  })

  it('when a body stops arriving, then 408 in the error body', async () => {
    const res = await raw('POST /objects HTTP/1.1\r\nHost: gw.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"data":{')
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', details: null })
  })
})

describe('a request that arrives while the gateway shuts down', () => {
  it.each([['the full path', false], ['the read cache lane in front', true]])('through %s: 503 SERVICE_UNAVAILABLE in the error body, with Retry-After and Connection: close', async (_label, readCache) => {
    const app = await listening(await gw.build({ settings: { readCache } }))
    // a request begun before the close (its headers half sent) keeps its connection open through it
    const { socket, answer } = open(app)
    socket.write('GET /objects/1 HTTP/1.1\r\nHost: gw.test\r\nOrigin: https://app.example\r\n')
    await new Promise((r) => setTimeout(r, 100))
    const closed = app.close()
    await new Promise((r) => setTimeout(r, 200))
    socket.write('\r\n')
    const res = await answer
    await closed
    expect(res.status).toBe(503)
    expect(res.headers).toMatch(/retry-after: 1\r\n/)
    expect(res.headers).toMatch(/connection: close/)
    expect(res.headers).toMatch(/x-request-id: /)
    expect(res.headers).toMatch(/access-control-allow-origin: \*/)
    expectErrorBody(res.body, 503, 'SERVICE_UNAVAILABLE', 'http://gw.test/objects/1')
  })
})
