import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { sendWebhook, type SendOptions } from '../../src/webhooks/send.js'
import { must } from '../support/must.js'

const secret = `whsec_${randomBytes(24).toString('base64')}`
const open: Server[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await new Promise((resolve) => s.close(resolve).closeAllConnections())
})

interface Seen { headers: IncomingMessage['headers'], body: string }
async function receiver (answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string, port: number, seen: Seen[] }> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => {
      seen.push({ headers: req.headers, body })
      answer(req, res)
    })
  })
  open.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hook`, port, seen }
}

const message = { id: 'msg_test1', timestamp: new Date(), body: JSON.stringify({ type: 'object.created', timestamp: new Date().toISOString(), data: { seq: 1 } }) }
const options: SendOptions = { secret, timeoutMs: 300, policy: { allowPrivate: true } }
const strict: SendOptions = { ...options, policy: { allowPrivate: false } }

describe('sending one webhook delivery', () => {
  it('when the receiver answers 200, then it is a success and the receiver can verify the signature', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('thanks'))
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: true, status: 200 })
    const [got] = r.seen
    expect(must(got).body).toBe(message.body)
    expect(must(got).headers['webhook-id']).toBe('msg_test1')
    expect(must(got).headers['webhook-timestamp']).toBe(String(Math.floor(message.timestamp.getTime() / 1000)))
    expect(must(got).headers['content-type']).toBe('application/json')
    expect(must(got).headers['user-agent']).toBe('content-objects-webhooks/1')
    const headers = Object.fromEntries(Object.entries(must(got).headers).map(([k, v]) => [k, String(v)]))
    expect(new Webhook(secret).verify(must(got).body, headers)).toEqual(JSON.parse(message.body))
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(must(got).body, headers)).toThrow()
  })

  it('when the receiver answers 204, then it is a success', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end())
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: true, status: 204 })
  })

  it('when the receiver answers 500, then it is a failure with that status', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('no'))
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' })
  })

  it('when the receiver redirects, then the redirect is not followed', async () => {
    const elsewhere = await receiver((_req, res) => res.writeHead(200).end())
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end())
    expect(await sendWebhook(redirecting.url, message, options)).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' })
    expect(redirecting.seen).toHaveLength(1)
    expect(elsewhere.seen).toHaveLength(0)
  })

  it('when the receiver never answers, then the attempt fails at the timeout', async () => {
    const r = await receiver(() => {})
    const started = Date.now()
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: false, error: 'timed out after 300 ms' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('when the receiver drops the connection, then it is a failure', async () => {
    const r = await receiver((req) => req.socket.destroy())
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: false, error: 'ECONNRESET' })
  })

  it('when nobody listens, then ECONNREFUSED', async () => {
    const gone = await receiver(() => {})
    await new Promise((resolve) => must(open.pop()).close(resolve))
    expect(await sendWebhook(gone.url, message, options)).toMatchObject({ ok: false, error: 'ECONNREFUSED' })
  })

  it('when the answer is huge, then its status counts and the rest is not read', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end(Buffer.alloc(1024 * 1024, 97)))
    expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: true, status: 200 })
  })

  it('when the receiver is on loopback and private addresses are not allowed, then nothing is sent', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end())
    for (const url of [r.url, `http://localhost:${r.port}/hook`, `http://[::ffff:127.0.0.1]:${r.port}/hook`]) {
      expect(await sendWebhook(url, message, strict), url).toMatchObject({ ok: false, error: expect.stringMatching(/^EADDRNOTALLOWED: /) })
    }
    expect(r.seen).toHaveLength(0)
  })

  it('when the URL or the secret is unusable, then it fails without throwing', async () => {
    expect(await sendWebhook('ftp://example.org/x', message, options)).toMatchObject({ ok: false, error: 'the URL must be http or https' })
    const r = await receiver((_req, res) => res.writeHead(200).end())
    expect(await sendWebhook(r.url, { ...message, id: 'bad\nid' }, options)).toMatchObject({ ok: false })
    expect(r.seen).toHaveLength(0)
  })
})
