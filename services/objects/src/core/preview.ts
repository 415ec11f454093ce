import { ANONYMOUS, DomainError, previewInvalid, signPreview, verifyPreview } from '@content/platform'
import { listSpecOf, needsSelect, type WireQuery } from './list-query.js'
import { objectRef } from './object-ref.js'
import { callerVisibility, includedView, notFound, viewOf } from './read-context.js'
import type { Caller, ObjectRecord, ObjectView } from './types.js'
import { canRead, readAccess } from './visibility.js'
import { writeAccess } from './write-access.js'
import { writableObject, type WriteDeps } from './write-context.js'

/*
 * Preview links (decisions §16): a writer asks for a URL that reads one object as that writer would
 * (drafts visible, its read groups honoured) with no token. The token (platform's preview-token.ts) names
 * the object, the writer and its groups; the gateway trades it with the auth service for the writer's
 * access as it is now, so a deleted or disabled writer's URL stops reading, and this service checks that
 * this access may still write the object. What the object shows of others (counts, includes) is what the
 * public sees: the URL's holder is anyone.
 */

export interface PreviewSettings {
  /** the HMAC key of preview tokens (platform's previewKey) */
  key: Buffer
  /** PREVIEW_TTL: how long a preview URL reads, ms */
  ttlMs: number
}

/** POST /objects/{id}/preview: the writer's token for the object (401, 404, 403 as for any write of it). */
export async function createPreview (deps: WriteDeps, settings: PreviewSettings, caller: Caller, objectId: string): Promise<{ object_id: number, token: string, expires: number }> {
  const record = await writableObject(deps, caller, objectId)
  const issued = deps.now()
  const expires = issued + settings.ttlMs
  const token = signPreview(settings.key, { object_id: record.id, user_id: caller.user_id, groups: caller.groups, issued, expires })
  return { object_id: record.id, token, expires }
}

/** Whether a path's `{object_id}` names `record`: its id, or its nickname. */
export function pathNames (objectId: string, record: Pick<ObjectRecord, 'id' | 'nickname'>): boolean {
  const ref = objectRef(objectId)
  return 'id' in ref ? ref.id === record.id : ref.nickname === record.nickname
}

/**
 * GET /objects/{id}/preview?token=…: the single read by the token's writer, drafts included. `writer` is
 * the call's caller: the writer's current access, which the gateway got for this token from the auth service.
 * A URL whose path names another object (existing or not) is 404, as if the object were not there.
 */
export async function readPreview (deps: WriteDeps, settings: PreviewSettings, writer: Caller, objectId: string, token: string, query: WireQuery | null | undefined): Promise<ObjectView> {
  const claims = verifyPreview(settings.key, token, deps.now())
  if (writer.user_id !== claims.user_id) throw previewInvalid('not read as its writer')
  const spec = listSpecOf(query)
  if (needsSelect(spec)) throw new DomainError('INVALID_PARAMETER', 'a single object takes no filter, sort, cursor or count', { parameter: 'filter' })
  const record = await deps.reads.store.objects.get({ id: claims.object_id })
  if (record === null || !pathNames(objectId, record)) throw notFound(`"${objectId}"`)
  // the writer's rights first: a draft it may no longer write is out of its reach, which is no 404 here
  if (writeAccess(writer, deps.writerGroups, record) !== 'ok' || !canRead(record, writer.groups)) throw previewInvalid('its writer may no longer write this object')
  const reader: Caller = { ...writer, sees_drafts: true }
  // unpublished (off) or outside its window: as the writer's own read of it answers
  if (readAccess(record, callerVisibility(deps.reads, reader), reader) !== 'ok') throw notFound(`"${objectId}"`)
  const publicView = callerVisibility(deps.reads, ANONYMOUS)
  return includedView(deps.reads, await viewOf(deps.reads, record, publicView), publicView, spec)
}
