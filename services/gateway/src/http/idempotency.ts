import { createHash } from 'node:crypto'
import type { RequestContext } from './context.js'
import { HttpError } from './errors.js'

/**
 * `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header) on POST writes: the objects service
 * answers a repeat of the same request under the same key with the first answer. A key is 1–255 visible
 * ASCII characters; Node joins a repeated header with ", ", which no key may hold.
 */
export const IDEMPOTENCY_KEY = 'Idempotency-Key'
const KEY = /^[\x21-\x7e]{1,255}$/

/** The answer header of a replayed answer. */
export const REPLAYED = 'idempotent-replayed'

/** JSON with the keys of every object sorted: bodies that differ only in key order or spacing are one request. */
export function canonicalJson (value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v)) ?? ''
}

/** SHA-256 hex of the method, the path (without query) and the canonical body: what makes two requests the same. */
export function requestHash (method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`).digest('hex')
}

/** The key and fingerprint a guarded write passes to the objects service; none without the header; 400 for a bad one. */
export function idempotencyOf (ctx: RequestContext): { idempotency_key: string, request_hash: string } | Record<string, never> {
  const key = ctx.headers[IDEMPOTENCY_KEY.toLowerCase()]
  if (key === undefined) return {}
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new HttpError('INVALID_PARAMETER', `${IDEMPOTENCY_KEY} must be sent once, as 1 to 255 visible ASCII characters`, { parameter: IDEMPOTENCY_KEY })
  }
  return { idempotency_key: key, request_hash: requestHash(ctx.info.method, ctx.info.url.slice(ctx.info.origin.length), ctx.body) }
}

/** `Idempotent-Replayed: true` when the objects service answered a repeat with the first answer. */
export const replayHeaders = (ctx: RequestContext): Record<string, string> => (ctx.notes.replayed ? { [REPLAYED]: 'true' } : {})
