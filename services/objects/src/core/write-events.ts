import type { ChangeDraft, RowAccess } from './change-events.js'
import type { SavedChildRow, SavedRelationRow } from './types.js'

/*
 * The change events of every write, from what the write did: the one place that decides them, so both
 * stores record the same. A store records each list inside the write's transaction as soon as the step
 * it describes is done, because it reads the events' types and surroundings (`affectedIds`) then: an
 * object's own events once its row and its links' rows are written, before its links' events (its access
 * then holds the parents the write left), a deletion's before its rows go.
 */

/** What an object write did to the links it was given (ObjectLinks), in the order it wrote them. */
export interface LinksWritten {
  /** each parent, and whether the write made the edge */
  parents: { parent_id: number, created: boolean }[]
  /** each relation, and whether the write made the pair */
  relations: { name: string, related_id: number, created: boolean }[]
}

export const objectCreated = (id: number): ChangeDraft[] => [{ type: 'object.created', object_id: id }]

/**
 * An update of an object that exists; `fileChanged`: it attached a claimed upload. `before`: who could read
 * it before (its first event carries it: a follower then knows whom the update took it away from).
 */
export function objectUpdated (id: number, fileChanged: boolean, before: RowAccess | null): ChangeDraft[] {
  const updated: ChangeDraft = before === null ? { type: 'object.updated', object_id: id } : { type: 'object.updated', object_id: id, before }
  return fileChanged ? [updated, { type: 'file.changed', object_id: id }] : [updated]
}

export const objectDeleted = (id: number): ChangeDraft[] => [{ type: 'object.deleted', object_id: id }]

/** Moved to the trash: recorded before its rows go, so its parents and related objects hear of it. */
export const objectTrashed = (id: number): ChangeDraft[] => [{ type: 'object.trashed', object_id: id }]

/** Back from the trash: recorded once its rows, edges and relations are back, so all of them hear of it. */
export const objectRestored = (id: number): ChangeDraft[] => [{ type: 'object.restored', object_id: id }]

/** `found`: the object existed and took the groups; `before`: who could read it before, as objectUpdated's. */
export const permissionsSet = (id: number, found: boolean, before: RowAccess | null): ChangeDraft[] =>
  (!found ? [] : before === null ? [{ type: 'permissions.changed', object_id: id }] : [{ type: 'permissions.changed', object_id: id, before }])

/** A parent given by a write of the object itself (create, update, import): one it already had changes nothing. */
export const parentPlaced = (id: number, parentId: number, created: boolean): ChangeDraft[] =>
  (created ? [{ type: 'child.added', object_id: id, parent_id: parentId }] : [])

export const relationSaved = (objectId: number, name: string, relatedId: number, created: boolean): ChangeDraft[] =>
  [{ type: created ? 'relation.created' : 'relation.updated', object_id: objectId, relation: name, related_id: relatedId }]

/** The links of an object write: its new edges, then each relation. */
export function linksWritten (id: number, links: LinksWritten): ChangeDraft[] {
  return [
    ...links.parents.flatMap((p) => parentPlaced(id, p.parent_id, p.created)),
    ...links.relations.flatMap((r) => relationSaved(id, r.name, r.related_id, r.created)),
  ]
}

/** Children saved under a parent: a new edge is added, an existing one updated (its priority). */
export const childrenSaved = (parentId: number, rows: SavedChildRow[]): ChangeDraft[] =>
  rows.map((r) => ({ type: r.created ? 'child.added' : 'child.updated', object_id: r.child_id, parent_id: parentId }))

export const childRemoved = (parentId: number, childId: number, removed: boolean): ChangeDraft[] =>
  (removed ? [{ type: 'child.removed', object_id: childId, parent_id: parentId }] : [])

export const relationsSaved = (objectId: number, name: string, rows: SavedRelationRow[]): ChangeDraft[] =>
  rows.flatMap((r) => relationSaved(objectId, name, r.related_id, r.created))

/** `found`: the pair existed and took the new priority and params. */
export const relationReplaced = (objectId: number, name: string, relatedId: number, found: boolean): ChangeDraft[] =>
  (found ? [{ type: 'relation.updated', object_id: objectId, relation: name, related_id: relatedId }] : [])

export const relationRemoved = (objectId: number, name: string, relatedId: number, removed: boolean): ChangeDraft[] =>
  (removed ? [{ type: 'relation.deleted', object_id: objectId, relation: name, related_id: relatedId }] : [])
