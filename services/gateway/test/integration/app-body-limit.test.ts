import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

// A JSON body over the limit is refused before it is read. The client is still sending: if the server
// closed at once, the rest would draw a reset and the client would lose the 413 (RFC 9112 §9.6).
const gw = gatewayTest({ routing: { bodyLimit: 1_048_576 } })
let port: number
beforeAll(async () => {
  await gw.app.listen({ host: '127.0.0.1', port: 0 })
  port = (gw.app.server.address() as { port: number }).port
})

/**
 * Sends 2.5 MB of body whatever the server answers, declared up front or chunked; resolves with what came
 * back and how the connection ended.
 */
function sendOversized (framing: 'length' | 'chunked'): Promise<{ answer: string, errors: string[], sentAll: boolean }> {
  return new Promise((resolve) => {
    // half-open: keep sending after the server's FIN, as a client streaming a body does
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const total = 40 * 64 * 1024
    let answer = ''
    const errors: string[] = []
    let sent = 0
    const data = Buffer.alloc(64 * 1024, 0x61)
    const chunk = framing === 'length' ? data : Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
    socket.on('data', (received) => { answer += String(received) })
    socket.on('error', (err: NodeJS.ErrnoException) => { errors.push(err.code ?? err.message) })
    socket.once('close', () => resolve({ answer, errors, sentAll: sent >= total }))
    const framingHeader = framing === 'length' ? `content-length: ${total}` : 'transfer-encoding: chunked'
    socket.write(`POST /objects HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n${framingHeader}\r\n\r\n`)
    // a client on a slower link: the body takes about a second to send, well past the answer
    const pump = () => {
      if (socket.destroyed) return
      if (sent >= total) return socket.end(framing === 'chunked' ? '0\r\n\r\n' : '')
      sent += data.length
      socket.write(chunk, () => setTimeout(pump, 20))
    }
    pump()
  })
}

describe('a JSON body over the limit', () => {
  for (const framing of ['length', 'chunked'] as const) {
    it(`(${framing === 'length' ? 'declared by Content-Length' : 'found while reading a chunked body'}): the client gets the 413 with the error body, and may finish sending without a reset`, async () => {
      const { answer, errors, sentAll } = await sendOversized(framing)
      expect(answer).toMatch(/^HTTP\/1\.1 413 /)
      expect(answer.toLowerCase()).toContain('connection: close')
      expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"')
      // the rest of the body was taken in and discarded: no reset cut the client off
      expect(errors).toEqual([])
      expect(sentAll).toBe(true)
    })
  }
})
