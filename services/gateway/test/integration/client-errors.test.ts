import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { handleClientError } from '../../src/http/client-errors.js'

describe('requests the HTTP parser rejects', () => {
  let server: Server
  let port: number

  beforeAll(async () => {
    server = createServer({ maxHeaderSize: 1024 }, (_req, res) => res.end('ok'))
    server.on('clientError', handleClientError)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it('when the headers are too large, then 431 with the error body', async () => {
    const { status, body } = await new Promise<{ status: number, body: string }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: `/objects?x=${'a'.repeat(4096)}` }, (res) => {
        let text = ''
        res.on('data', (c) => { text += String(c) })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(431)
    expect(JSON.parse(body)).toEqual({ error: { status: 431, code: 'HEADERS_TOO_LARGE', message: expect.any(String), details: null, more_info: null, url: '' } })
  })
})
