import { createHmac, timingSafeEqual } from 'node:crypto'
import { DomainError } from '@content/platform'
import type { WireQuery } from './list-query.js'
import { getObject } from './objects.reader.js'
import type { Caller, ObjectView } from './types.js'
import { writableObject, type WriteDeps } from './write-context.js'

/*
 * Preview links (decisions §16): a writer asks for a URL that reads one object as that writer would
 * (drafts visible, its read groups honoured) with no token. The link's token is the writer's identity,
 * the object's id and an expiry, signed by this service; nothing is stored.
 */

export interface PreviewSettings {
  /** the HMAC key of preview tokens (see previewKey) */
  key: Buffer
  /** PREVIEW_TTL: how long a preview URL reads, ms */
  ttlMs: number
}

/** The preview key: derived from SERVICE_SECRET, so every replica agrees and nothing public (the store id) can forge one. */
export const previewKey = (serviceSecret: string): Buffer => createHmac('sha256', serviceSecret).update('content-objects preview token v1').digest()

interface Claims { object_id: number, user_id: number, groups: string[], may_write: boolean, expires: number }

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url')

export function signPreview (key: Buffer, claims: Claims): string {
  const body = Buffer.from(JSON.stringify([claims.object_id, claims.user_id, claims.groups, claims.may_write, claims.expires])).toString('base64url')
  return `${body}.${mac(key, body)}`
}

const invalid = (why: string) => new DomainError('PREVIEW_TOKEN_INVALID', `invalid preview token: ${why}`, { parameter: 'token' })

/** The claims of a token this service signed, or PREVIEW_TOKEN_INVALID / PREVIEW_TOKEN_EXPIRED. */
export function verifyPreview (key: Buffer, token: string, now: number): Claims {
  const [body, signature, ...rest] = token.split('.')
  if (body === undefined || signature === undefined || rest.length > 0) throw invalid('malformed')
  const expected = Buffer.from(mac(key, body))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('bad signature')
  const [objectId, userId, groups, mayWrite, expires] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [number, number, string[], boolean, number]
  if (expires <= now) throw new DomainError('PREVIEW_TOKEN_EXPIRED', 'the preview URL has expired; ask for a new one', { parameter: 'token' })
  return { object_id: objectId, user_id: userId, groups, may_write: mayWrite, expires }
}

/** POST /objects/{id}/preview: the writer's token for the object (401, 404, 403 as for any write of it). */
export async function createPreview (deps: WriteDeps, settings: PreviewSettings, caller: Caller, objectId: string): Promise<{ object_id: number, token: string, expires: number }> {
  const record = await writableObject(deps, caller, objectId)
  const expires = deps.now() + settings.ttlMs
  const token = signPreview(settings.key, { object_id: record.id, user_id: caller.user_id, groups: caller.groups, may_write: caller.may_write === true, expires })
  return { object_id: record.id, token, expires }
}

/** GET /objects/{id}/preview?token=…: the single read, by the writer the token names, drafts included. */
export async function readPreview (deps: WriteDeps, settings: PreviewSettings, objectId: string, token: string, query: WireQuery | null | undefined): Promise<ObjectView> {
  const claims = verifyPreview(settings.key, token, deps.now())
  if (/^\d+$/.test(objectId) && Number(objectId) !== claims.object_id) throw invalid('made for another object')
  const reader: Caller = { user_id: claims.user_id, groups: claims.groups, may_write: claims.may_write, sees_drafts: true }
  const view = await getObject(deps.reads, reader, { object_id: objectId, query })
  if (view.id !== claims.object_id) throw invalid('made for another object')
  return view
}
