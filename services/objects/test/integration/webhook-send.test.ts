import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { sendWebhook, type SendOptions } from '../../src/webhooks/send.js'
import { addressAllowed, checkWebhookUrl, guardedLookup } from '../../src/webhooks/target.js'

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

describe('sending one webhook delivery', () => {
  it('when the receiver answers 2xx, then it is a success and the receiver can verify the signature', async () => {
    for (const status of [200, 204]) {
      const r = await receiver((_req, res) => res.writeHead(status).end())
      expect(await sendWebhook(r.url, message, options)).toMatchObject({ ok: true, status })
      const [got] = r.seen
      expect(got!.body).toBe(message.body)
      expect(got!.headers['webhook-id']).toBe('msg_test1')
      expect(got!.headers['content-type']).toBe('application/json')
      const headers = Object.fromEntries(Object.entries(got!.headers).map(([k, v]) => [k, String(v)]))
      expect(new Webhook(secret).verify(got!.body, headers)).toEqual(JSON.parse(message.body))
      expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(got!.body, headers)).toThrow()
    }
  })

  it('when the receiver fails, redirects, hangs or drops the connection, then it is a failure saying why', async () => {
    const failing = await receiver((_req, res) => res.writeHead(500).end('no'))
    expect(await sendWebhook(failing.url, message, options)).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' })
    const elsewhere = await receiver((_req, res) => res.writeHead(200).end())
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end())
    expect(await sendWebhook(redirecting.url, message, options)).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' })
    expect(elsewhere.seen).toHaveLength(0)
    const hanging = await receiver(() => {})
    const started = Date.now()
    expect(await sendWebhook(hanging.url, message, options)).toMatchObject({ ok: false, error: 'timed out after 300 ms' })
    expect(Date.now() - started).toBeLessThan(2_000)
    const dropping = await receiver((req) => req.socket.destroy())
    expect(await sendWebhook(dropping.url, message, options)).toMatchObject({ ok: false, error: 'ECONNRESET' })
  })

  it('when nobody listens, then ECONNREFUSED', async () => {
    const gone = await receiver(() => {})
    await new Promise((resolve) => open.pop()!.close(resolve))
    expect(await sendWebhook(gone.url, message, options)).toMatchObject({ ok: false, error: 'ECONNREFUSED' })
  })

  it('when the answer is huge, then its status counts and the rest is not read', async () => {
    const big = await receiver((_req, res) => res.writeHead(200).end(Buffer.alloc(1024 * 1024, 97)))
    expect(await sendWebhook(big.url, message, options)).toMatchObject({ ok: true, status: 200 })
  })

  it('when the receiver is on loopback and private addresses are not allowed, then nothing is sent', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end())
    const strict = { ...options, policy: { allowPrivate: false } }
    expect(await sendWebhook(r.url, message, strict)).toMatchObject({ ok: false, error: expect.stringMatching(/^EADDRNOTALLOWED/) })
    expect(await sendWebhook(`http://localhost:${r.port}/hook`, message, strict)).toMatchObject({ ok: false, error: expect.stringMatching(/^EADDRNOTALLOWED/) })
    expect(await sendWebhook(`http://[::ffff:127.0.0.1]:${r.port}/hook`, message, strict)).toMatchObject({ ok: false, error: expect.stringMatching(/^EADDRNOTALLOWED/) })
    expect(r.seen).toHaveLength(0)
    expect(await sendWebhook('ftp://example.org/x', message, options)).toMatchObject({ ok: false, error: 'the URL must be http or https' })
  })
})

describe('webhook targets', () => {
  it('when a URL is checked, then only absolute http(s) URLs without credentials pass', () => {
    expect(checkWebhookUrl('https://hooks.example.org/a?b=1')).toMatchObject({ ok: true })
    expect(checkWebhookUrl('http://hooks.example.org')).toMatchObject({ ok: true })
    for (const bad of ['ftp://x.org/', 'javascript:alert(1)', '/relative', 'https://user:pw@x.org/', `https://x.org/${'a'.repeat(2100)}`, 'not a url']) {
      expect(checkWebhookUrl(bad).ok, bad).toBe(false)
    }
  })

  it('when an address is judged, then loopback, private, link-local and special ranges are refused unless allowed', () => {
    const strict = { allowPrivate: false }
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'garbage']) {
      expect(addressAllowed(a, strict), a).toBe(false)
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888']) expect(addressAllowed(a, strict), a).toBe(true)
    expect(addressAllowed('127.0.0.1', { allowPrivate: true })).toBe(true)
    expect(addressAllowed('garbage', { allowPrivate: true })).toBe(false)
  })

  it('when a name resolves to a refused address, then the lookup fails with EADDRNOTALLOWED', async () => {
    const lookup = (allowPrivate: boolean) => new Promise<{ err: NodeJS.ErrnoException | null, address: unknown }>((resolve) =>
      guardedLookup({ allowPrivate })('localhost', {}, (err, address) => resolve({ err, address })))
    expect((await lookup(false)).err?.code).toBe('EADDRNOTALLOWED')
    const allowed = await lookup(true)
    expect(allowed.err).toBeNull()
    expect(['127.0.0.1', '::1']).toContain(allowed.address)
  })
})
