import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { chunkedDecoder, rawGet } from '../autocannon/raw-stream.mjs'

/** A chunked body: chunks of the parts (one with an extension, sizes in both cases of hex), then the last chunk and a trailer. */
const PARTS = ['retry: 1000\n\n', 'id: 1.s\nevent: object.created\ndata: {"a":1}\n\n', 'x'.repeat(300)]
const BODY = Buffer.from(
  `${PARTS[0]?.length.toString(16)}\r\n${PARTS[0]}\r\n` +
  `${PARTS[1]?.length.toString(16).toUpperCase()};name=value\r\n${PARTS[1]}\r\n` +
  `${PARTS[2]?.length.toString(16)}\r\n${PARTS[2]}\r\n` +
  '0\r\nx-trailer: 1\r\n\r\n',
)

function decode (chunks: Buffer[]): { text: string, ended: number } {
  let text = ''
  let ended = 0
  const feed = chunkedDecoder((bytes: Buffer) => { text += bytes.toString('latin1') }, () => { ended++ })
  for (const chunk of chunks) feed(chunk)
  return { text, ended }
}

describe('chunkedDecoder', () => {
  it('when a chunked body comes whole, cut at any byte, or a byte at a time, then its data comes out in order and its end once', () => {
    const whole = { text: PARTS.join(''), ended: 1 }
    expect(decode([BODY])).toEqual(whole)
    for (let cut = 1; cut < BODY.length; cut++) expect(decode([BODY.subarray(0, cut), BODY.subarray(cut)])).toEqual(whole)
    expect(decode([...BODY].map((b) => Buffer.from([b])))).toEqual(whole)
  })

  it('when a size is not hexadecimal or a chunk is not followed by CRLF, then it throws', () => {
    expect(() => decode([Buffer.from('zz\r\n')])).toThrow(/hexadecimal/)
    expect(() => decode([Buffer.from('2\r\nabX')])).toThrow(/CRLF/)
    expect(() => decode([Buffer.from('\r\n')])).toThrow(/without a size/)
  })
})

describe('rawGet', () => {
  it('when a server streams a chunked answer, then the head\'s status comes first, then the body as written, then its end', async () => {
    const server = http.createServer((req, res) => {
      if (req.url !== '/changes' || req.headers.accept !== 'text/event-stream') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      let i = 0
      const next = () => (i < PARTS.length ? res.write(PARTS[i++], () => setTimeout(next, 5)) : res.end())
      next()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const got = await new Promise<{ status: number, text: string, why: string }>((resolve) => {
        let status = 0
        let text = ''
        rawGet({ host: '127.0.0.1', port, path: '/changes', headers: { accept: 'text/event-stream' } }, {
          onHead: (s: number) => { status = s },
          onBytes: (bytes: Buffer) => { text += bytes.toString('latin1') },
          onEnd: (why: string) => resolve({ status, text, why }),
        })
      })
      expect(got).toEqual({ status: 200, text: PARTS.join(''), why: 'the server ended the body' })
      const missing = await new Promise<number>((resolve) => {
        const socket = rawGet({ host: '127.0.0.1', port, path: '/elsewhere', headers: {} }, {
          onHead: (s: number) => { socket.destroy(); resolve(s) },
          onBytes: () => {},
          onEnd: () => {},
        })
      })
      expect(missing).toBe(404)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
