import { createHmac, timingSafeEqual } from 'node:crypto'
import { DomainError } from '../errors.js'

/*
 * Preview tokens (decisions §16): the object's id, the writer's id and groups as they asked, when they
 * asked, and an expiry, signed with a key derived from SERVICE_SECRET; nothing is stored. The objects service signs
 * them, the auth service trades one for the writer's current access (only while the writer may still log
 * in), and the objects service checks it again before it reads: every holder of SERVICE_SECRET verifies
 * with this one function.
 */

export interface PreviewClaims {
  object_id: number
  user_id: number
  /** the groups of the identity that asked for the preview (a login's, or an API key's) */
  groups: string[]
  /** ms since the epoch: a writer whose sessions ended later (disabled, new password) no longer previews with it */
  issued: number
  /** ms since the epoch */
  expires: number
}

/** The key of preview tokens: derived from SERVICE_SECRET, so every replica agrees and nothing public can forge one. */
export const previewKey = (serviceSecret: string): Buffer =>
  createHmac('sha256', serviceSecret).update('content-objects preview token v2').digest()

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url')

export function signPreview (key: Buffer, claims: PreviewClaims): string {
  const body = Buffer.from(JSON.stringify([claims.object_id, claims.user_id, claims.groups, claims.issued, claims.expires])).toString('base64url')
  return `${body}.${mac(key, body)}`
}

export const previewInvalid = (why: string) => new DomainError('PREVIEW_TOKEN_INVALID', `invalid preview token: ${why}`, { parameter: 'token' })

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
const isGroups = (v: unknown): v is string[] => Array.isArray(v) && v.length <= 1000 && v.every((g) => typeof g === 'string' && g !== '')

/**
 * The claims of a well-typed body, or null. A signature only says who made the bytes: a body of another
 * shape (an earlier version's, or one signed by a bug) is refused like a forged one, never trusted.
 */
export function claimsOf (body: unknown): PreviewClaims | null {
  if (!Array.isArray(body) || body.length !== 5) return null
  const [objectId, userId, groups, issued, expires] = body as unknown[]
  if (!isId(objectId) || !isId(userId) || !isGroups(groups) || !isTime(issued) || !isTime(expires)) return null
  return { object_id: objectId, user_id: userId, groups: [...groups], issued, expires }
}

function parsedBody (body: string): unknown {
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

/** The claims of a token signed with `key`, or PREVIEW_TOKEN_INVALID / PREVIEW_TOKEN_EXPIRED. */
export function verifyPreview (key: Buffer, token: string, now: number): PreviewClaims {
  const [body, signature, ...rest] = token.split('.')
  if (body === undefined || signature === undefined || body === '' || rest.length > 0) throw previewInvalid('malformed')
  const expected = Buffer.from(mac(key, body))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw previewInvalid('bad signature')
  const claims = claimsOf(parsedBody(body))
  if (claims === null) throw previewInvalid('malformed claims')
  if (claims.expires <= now) throw new DomainError('PREVIEW_TOKEN_EXPIRED', 'the preview URL has expired; ask for a new one', { parameter: 'token' })
  return claims
}
