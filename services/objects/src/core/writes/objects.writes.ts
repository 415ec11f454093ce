import { rowAccess } from '../change-events.js'
import type { ObjectLinks, ObjectPatch, ObjectWrite } from '../object-input.js'
import { linksWritten, objectCreated, objectDeleted, objectUpdated, permissionsSet, type LinksWritten } from '../write-events.js'
import type { ObjectRecord } from '../types.js'
import type { Steps, Tx } from '../unit-of-work.js'
import { keepOutcome, keepRevision, recordBefore } from './kept-rows.writes.js'
import { placeUnder } from './links.writes.js'

/*
 * The object writes of ObjectsPort, each composed once of the store's steps: which rows, in which
 * order, and which events when — an object's own events before its links' events, recorded once its links'
 * rows are written (the access a creation or an update records holds the parents the write left it under;
 * links are only ever added by a save, so an update's surroundings still hold every parent it had), a
 * deletion's before its rows go (write-events.ts).
 */

/**
 * What an object's save left: its id, and its record as the save left it when the save read it for its
 * revision (null when it did not), so that the answer's read of the object need not read it again.
 */
export interface ObjectSaved { id: number, record: ObjectRecord | null }

/**
 * Creates the object with its extras, links, revision, upload claim and idempotency key. Nothing after
 * the revision writes the object's own row (the claim and the key are rows of their own), so the record
 * the revision read is the one the save leaves.
 */
export function * createObject (tx: Tx, write: ObjectWrite, now: number): Steps<ObjectSaved> {
  const id = yield * tx.insertObject(write, now)
  // a new object is nobody's ancestor: its parents need no cycle check
  const links = write.links ? yield * writeLinks(tx, id, write.links, false) : undefined
  // one call: its events see one state (a store reads the object's access once for them)
  yield * tx.appendChanges(links ? [...objectCreated(id), ...linksWritten(id, links)] : objectCreated(id))
  const record = yield * keepRevision(tx, id, null, now, write.user_id)
  if (write.claim) yield * tx.claimUpload(write.claim)
  yield * keepOutcome(tx, write.idempotency, { kind: 'object', id, created: true })
  return { id, record }
}

/** Applies the patch; null when the object is gone (its claim and key are then left unused). The record as createObject's. */
export function * updateObject (tx: Tx, id: number, patch: ObjectPatch, now: number): Steps<ObjectSaved | null> {
  // the revision compares the own fields before and after (decisions §16)
  const before = yield * recordBefore(tx, id)
  const access = before === null ? yield * tx.access(id) : rowAccess(before)
  if (!(yield * tx.updateObject(id, patch, now))) return null
  const links = patch.links ? yield * writeLinks(tx, id, patch.links, true) : undefined
  const updated = objectUpdated(id, patch.claim !== undefined, access)
  yield * tx.appendChanges(links ? [...updated, ...linksWritten(id, links)] : updated)
  const record = yield * keepRevision(tx, id, before, now, patch.user_id)
  if (patch.claim) yield * tx.claimUpload(patch.claim)
  yield * keepOutcome(tx, patch.idempotency, { kind: 'object', id, created: false })
  return { id, record }
}

/** Removes the object for good (its edges, relations and revisions with it). */
export function * removeObject (tx: Tx, id: number): Steps<'removed' | 'absent'> {
  if (!(yield * tx.exists(id))) return 'absent'
  // recorded while its surroundings are there: they hear of it
  yield * tx.appendChanges(objectDeleted(id))
  yield * tx.deleteObject(id)
  yield * tx.dropRevisions(id, null)
  return 'removed'
}

export function * setPermissions (tx: Tx, id: number, read: string[], write: string[]): Steps<boolean> {
  const before = yield * tx.access(id)
  const changed = yield * tx.setPermissions(id, read, write)
  yield * tx.appendChanges(permissionsSet(id, changed, before))
  return changed
}

/** Places the object under its parents, then saves its relations; `existing`: it may be below them already (a cycle check). */
function * writeLinks (tx: Tx, id: number, links: ObjectLinks, existing: boolean): Steps<LinksWritten> {
  const written: LinksWritten = { parents: [], relations: [] }
  for (const parent of links.parents) {
    const placed = existing ? yield * placeUnder(tx, parent, id, null) : yield * tx.placeChild(parent, id, null)
    written.parents.push({ parent_id: parent, created: placed.created })
  }
  for (const r of links.relations) {
    const saved = yield * tx.saveRelation(id, r.name, r.inverse, { related_id: r.related_id, priority: r.priority, params: r.params })
    written.relations.push({ name: r.name, related_id: r.related_id, created: saved.created })
  }
  return written
}
