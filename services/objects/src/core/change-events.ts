import { CHANGE_TYPES, changeBody, isChangeType, type ChangeBody, type ChangeType } from '@content/api-schema'
import type { ObjectTypeName } from './object-types.js'
import type { Status } from './types.js'

/** Decisions §13: what a committed write records in its outbox (the one list is @content/api-schema's). */
export { CHANGE_TYPES, isChangeType, type ChangeType }

/** What a write says happened (write-events.ts); the store adds the sequence number, types, time and affected ids. */
export type ChangeDraft =
  | { type: 'object.created' | 'object.updated' | 'object.deleted' | 'permissions.changed' | 'file.changed' | 'object.trashed' | 'object.restored'
    | 'object.published' | 'object.unpublished', object_id: number, before?: RowAccess }
  | { type: 'relation.created' | 'relation.updated' | 'relation.deleted', object_id: number, relation: string, related_id: number }
  | { type: 'child.added' | 'child.updated' | 'child.removed', object_id: number, parent_id: number }

/** An outbox row: ids and types only, never an object's content. */
export interface ChangeEvent {
  seq: number
  type: ChangeType
  object_id: number
  object_type: ObjectTypeName | ''
  related_id?: number
  related_type?: ObjectTypeName | ''
  relation?: string
  parent_id?: number
  parent_type?: ObjectTypeName | ''
  at: number
  /** every object whose reads may show the change (see `affectedIds`) */
  affects: number[]
  /** who may read `object_id` as the change left it (a removal: just before it); absent when the store did not record it */
  access?: AccessSnapshot
}

/**
 * Decisions §17: what decides who may read an event's object, recorded with the event at commit, so a
 * follower of the feed (the gateway's live streams) decides per caller without asking the store. Its
 * parents and ancestors (every path) serve the streams' `filter[parent]` and `filter[ancestor]`.
 */
export interface AccessSnapshot {
  status: Status
  /** empty: not protected */
  read_groups: string[]
  /** empty: the writer groups decide */
  write_groups: string[]
  start_date?: number
  end_date?: number
  parents: number[]
  /** every ancestor over every path, the object itself excluded */
  ancestors: number[]
  /** relation.* and child.*: who may read the other end (`otherEnd`) as the change left it; absent when its row is gone */
  other?: RowAccess
  /**
   * object.updated and permissions.changed: who could read the object just before the write, so a follower
   * that has seen no earlier event of it (a gateway started since, a resume from the store) still knows
   * whom the change took it away from (`object.unpublished`)
   */
  before?: RowAccess
}

/** Who may read an object by its row alone: the other end of an event's edge, which a stream's filters do not look at. */
export type RowAccess = Omit<AccessSnapshot, 'parents' | 'ancestors' | 'other' | 'before'>

/** The object at the other end of an event's edge (a relation's related object, a tree edge's parent), if it has one. */
export function otherEnd (draft: ChangeDraft): number | null {
  if ('related_id' in draft) return draft.related_id
  if ('parent_id' in draft) return draft.parent_id
  return null
}

/**
 * The access an event records: its object's, with the other end's when the event has one whose row is
 * there, and the object's before the write when the write read it (`ChangeDraft.before`).
 */
export function recordedAccess (draft: ChangeDraft, access: AccessSnapshot | null, other: RowAccess | null): AccessSnapshot | null {
  if (access === null) return null
  const before = 'before' in draft ? draft.before : undefined
  if (other === null && before === undefined) return access
  const recorded = { ...access }
  if (other !== null) recorded.other = other
  if (before !== undefined) recorded.before = before
  return recorded
}

/** An object's access columns as the stores keep them (groups null: none). */
export interface AccessColumns {
  status: Status
  read_groups: readonly string[] | null
  write_groups: readonly string[] | null
  start_date: number | null
  end_date: number | null
}

/** Who may read an object, from its row alone. */
export function rowAccess (row: AccessColumns): RowAccess {
  const access: RowAccess = { status: row.status, read_groups: [...(row.read_groups ?? [])], write_groups: [...(row.write_groups ?? [])] }
  if (row.start_date !== null) access.start_date = Number(row.start_date)
  if (row.end_date !== null) access.end_date = Number(row.end_date)
  return access
}

/** The snapshot of an object's row and places. */
export const accessSnapshot = (row: AccessColumns, id: number, parents: readonly number[], ancestors: readonly number[]): AccessSnapshot =>
  ({ ...rowAccess(row), parents: [...parents], ancestors: ancestors.filter((a) => a !== id) })

/** What a store looks up, at commit time inside the write's transaction, to know whom a change affects. */
export interface Surroundings {
  /** every ancestor over every path of the object `needs().ancestorsOf` names */
  ancestors: number[]
  /** direct parents and related objects (any name) of `needs().linksOf` */
  parents: number[]
  neighbours: number[]
}

/** The look-ups `affectedIds` needs for a draft (null: none). */
export function surroundingsNeeded (draft: ChangeDraft): { ancestorsOf: number | null, linksOf: number | null } {
  switch (draft.type) {
    case 'relation.created': case 'relation.updated': case 'relation.deleted': return { ancestorsOf: null, linksOf: null }
    case 'child.added': case 'child.updated': case 'child.removed': return { ancestorsOf: draft.parent_id, linksOf: null }
    // no read showed a new object before it was made: the reads its links alter are their events' own
    case 'object.created': return { ancestorsOf: null, linksOf: null }
    default: return { ancestorsOf: draft.object_id, linksOf: draft.object_id }
  }
}

/**
 * The objects whose reads may show a change. A read depends on every object it shows, lists or
 * counts, and a list on the object it lists under (children and descendants of it, its relations):
 * - a change of an object itself alters its own reads, its parents' child counts and children lists, its
 *   ancestors' descendants lists, and its related objects' relation counts and lists;
 * - a tree edge alters the child (its view names its parents), the parent and the parent's ancestors;
 * - a relation alters both ends (each lists and counts the other).
 */
export function affectedIds (draft: ChangeDraft, around: Surroundings): number[] {
  const ids = new Set<number>([draft.object_id, ...around.ancestors, ...around.parents, ...around.neighbours])
  if ('related_id' in draft) ids.add(draft.related_id)
  if ('parent_id' in draft) ids.add(draft.parent_id)
  return [...ids].sort((a, b) => a - b)
}

/** The message a webhook receiver gets (decisions §13): `data` holds ids and types only. */
export const webhookPayload = (event: ChangeEvent): ChangeBody => changeBody(event)
