import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { listen } from '../support/http-client.js'
import { gatewayTest } from '../support/gateway-test.js'

const gw = gatewayTest()
let port: number
/** the x-request-id values the objects fake received, in order */
const forwarded: unknown[] = []
beforeAll(async () => {
  const getObject = gw.backends.objects.GetObject
  gw.backends.objects.GetObject = async (request, call) => {
    forwarded.push(call.metadata.get('x-request-id')[0])
    return getObject(request, call)
  }
  port = (await listen(gw.app)).port
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** One request written byte for byte (latin1), so header values go out exactly as given; the parsed answer. */
function send (head: string, body = ''): Promise<{ status: number, headers: Record<string, string>, body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' })
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const [top = '', body = ''] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = top.split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body })
    })
    // not end(): a half-closed socket may lose its answer; the server closes after it (Connection: close)
    socket.write(Buffer.from(`${head}Connection: close\r\n\r\n${body}`, 'latin1'))
  })
}

const readWith = (requestId: string) => send(`GET /objects/1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: ${requestId}\r\n`)

describe('the request id (X-Request-Id), checked once at the edge', () => {
  it('when a client sends a bounded printable id, then it is kept: answered, and forwarded to the backend', async () => {
    const res = await readWith('trace-4711/abc:DEF')
    expect(res.status).toBe(200)
    expect(res.headers['x-request-id']).toBe('trace-4711/abc:DEF')
    expect(forwarded.at(-1)).toBe('trace-4711/abc:DEF')
  })

  it.each([
    ['a tab inside', 'abc\tdef'],
    ['a Latin-1 byte', 'abc\xe9'],
    ['a space inside', 'abc def'],
    ['129 characters', 'a'.repeat(129)],
    ['8 KiB', 'x'.repeat(8192)],
    ['two values joined by Node', 'a, b'],
  ])('when it has %s, then it is replaced by a generated id: the read answers 200, never a 4xx or 5xx', async (_label, value) => {
    const res = await readWith(value)
    expect(res.status, res.body).toBe(200)
    expect(res.headers['x-request-id']).toMatch(UUID)
    expect(forwarded.at(-1)).toBe(res.headers['x-request-id'])
  })

  it('when the header is repeated, then the id is generated', async () => {
    const res = await send('GET /objects/1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: one\r\nX-Request-Id: two\r\n')
    expect(res.status).toBe(200)
    expect(res.headers['x-request-id']).toMatch(UUID)
  })

  it.each([
    ['a read', 'GET /objects/1 HTTP/1.1\r\nHost: a\r\n', 200],
    ['a probe', 'GET /healthz HTTP/1.1\r\nHost: a\r\n', 200],
    ['an unknown endpoint', 'GET /nowhere HTTP/1.1\r\nHost: a\r\n', 404],
    ['a method no route takes', 'PATCH /objects/1 HTTP/1.1\r\nHost: a\r\n', 405],
    ['a write without a token', 'POST /objects HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n', 401, '{}'],
    ['a preflight', 'OPTIONS /objects HTTP/1.1\r\nHost: a\r\nOrigin: https://example.org\r\nAccess-Control-Request-Method: GET\r\n', 204],
    ['a request without Host', 'GET /objects/1 HTTP/1.1\r\n', 400],
    ['a path that is not percent-encoding', 'GET /objects/%zz HTTP/1.1\r\nHost: a\r\n', 400],
    ['a request the parser refuses', 'GET /objects/1 HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n', 400],
    ['a request id with a byte the parser refuses (DEL)', 'GET /objects/1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: abc\x7f\r\n', 400],
  ])('when it is %s, then the answer carries an id', async (_label, head, status, body?: string) => {
    const res = await send(head, body)
    expect(res.status).toBe(status)
    expect(res.headers['x-request-id']).toMatch(UUID)
  })

  it('when a browser reads the answer cross-origin, then the id is among the exposed headers', async () => {
    const res = await send('GET /objects/1 HTTP/1.1\r\nHost: a\r\nOrigin: https://example.org\r\n')
    expect(res.headers['access-control-expose-headers']?.split(/,\s*/)).toContain('X-Request-Id')
  })
})
