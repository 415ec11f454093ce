import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { addressAllowed, checkWebhookUrl, guardedLookup, type AddressPolicy } from './target.js'

export interface WebhookMessage { id: string, timestamp: Date, body: string }

export interface SendOptions {
  /** whsec_… */
  secret: string
  /** bound on the whole attempt: connecting, sending, the answer's headers and its first 64 KiB */
  timeoutMs: number
  policy: AddressPolicy
  userAgent?: string
}

export type SendOutcome = { ok: true, status: number, ms: number } | { ok: false, status?: number, error: string, ms: number }

/** Answer bytes read before the connection is dropped: a receiver cannot hold a delivery with a long body. */
const MAX_ANSWER = 64 * 1024

/**
 * One delivery attempt (Standard Webhooks): a signed JSON POST. Any 2xx is success; redirects are not
 * followed, since a redirect could lead to an address the target check would refuse. Never throws.
 */
export async function sendWebhook (target: string, message: WebhookMessage, options: SendOptions): Promise<SendOutcome> {
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  const checked = checkWebhookUrl(target)
  if (!checked.ok) return { ok: false, error: checked.reason, ms: ms() }
  const url = checked.url
  // Node connects to an IP-literal host without calling `lookup`, so it is judged here.
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0 && !addressAllowed(host, options.policy)) {
    return { ok: false, error: `EADDRNOTALLOWED: ${host} may not be reached by webhooks`, ms: ms() }
  }
  try {
    return await attempt(url, message, options, ms)
  } catch (err) {
    // A bad secret or a header value Node refuses throws before any connection.
    return { ok: false, error: err instanceof Error ? err.message : String(err), ms: ms() }
  }
}

function attempt (url: URL, message: WebhookMessage, options: SendOptions, ms: () => number): Promise<SendOutcome> {
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': options.userAgent ?? 'content-objects-webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret).sign(message.id, message.timestamp, message.body),
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    let settled = false
    const req = request(url, { method: 'POST', headers, agent: false, lookup: guardedLookup(options.policy) }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      let read = 0
      // The status decides; the body is only drained (up to the limit) so the receiver sees its answer taken.
      const finish = () => {
        if (status >= 200 && status < 300) done({ ok: true, status, ms: ms() })
        else done({ ok: false, status, error: status >= 300 && status < 400 ? 'redirect not followed' : `HTTP ${status}`, ms: ms() })
      }
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read >= MAX_ANSWER) finish()
      })
      res.on('end', finish)
      res.on('error', finish)
      res.on('close', finish)
    })
    // One timer for the whole attempt: per-phase timeouts would let a slow receiver add them up.
    const timer = setTimeout(() => done({ ok: false, error: `timed out after ${options.timeoutMs} ms`, ms: ms() }), options.timeoutMs)
    function done (outcome: SendOutcome) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(outcome)
    }
    req.on('error', (err: NodeJS.ErrnoException) => {
      done({ ok: false, error: err.code === 'EADDRNOTALLOWED' ? `EADDRNOTALLOWED: ${err.message}` : (err.code ?? err.message), ms: ms() })
    })
    req.end(message.body)
  })
}
