/**
 * Decisions §13 and §16: the change events a committed write (or a publication window) records in the
 * outbox, which webhooks and live streams (decisions §17) carry.
 */
export const CHANGE_TYPES = [
  'object.created', 'object.updated', 'object.deleted',
  'relation.created', 'relation.updated', 'relation.deleted',
  'child.added', 'child.updated', 'child.removed',
  'permissions.changed', 'file.changed',
  // decisions §16: DELETE moves to the trash, a restore brings back; object.deleted is the purge
  'object.trashed', 'object.restored',
  // decisions §16: a publication window opens or closes, without a write
  'object.published', 'object.unpublished',
] as const

export type ChangeType = typeof CHANGE_TYPES[number]

export const isChangeType = (s: string): s is ChangeType => (CHANGE_TYPES as readonly string[]).includes(s)

/** The ids and types of an event, as the outbox keeps them (optional ones absent when they do not apply). */
export interface ChangeIds {
  seq: number
  type: ChangeType
  object_id: number
  object_type: string
  relation?: string | undefined
  related_id?: number | undefined
  related_type?: string | undefined
  parent_id?: number | undefined
  parent_type?: string | undefined
  /** commit time, ms since the epoch */
  at: number
}

/** The body a webhook receiver (decisions §13) and a live stream (§17) get: `data` holds ids and types only. */
export interface ChangeBody { type: ChangeType, timestamp: string, data: Record<string, unknown> }

export function changeBody (event: ChangeIds): ChangeBody {
  const data: Record<string, unknown> = { seq: event.seq, object_id: event.object_id, object_type: event.object_type }
  if (event.relation !== undefined) data.relation = event.relation
  if (event.related_id !== undefined) Object.assign(data, { related_id: event.related_id, related_type: event.related_type })
  if (event.parent_id !== undefined) Object.assign(data, { parent_id: event.parent_id, parent_type: event.parent_type })
  return { type: event.type, timestamp: new Date(event.at).toISOString(), data }
}
