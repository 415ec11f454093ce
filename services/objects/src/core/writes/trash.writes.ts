import type { Steps, Tx } from '../unit-of-work.js'
import { objectDeleted, objectRestored, objectTrashed } from '../write-events.js'

/*
 * The trash writes of TrashPort (decisions §16), each composed once of the store's steps. A trashed
 * object keeps its id, nickname, file and revisions until it is purged.
 */

export function * putInTrash (tx: Tx, id: number, userId: number, now: number): Steps<'trashed' | 'absent' | 'has children'> {
  // core checked before the write; checked again in it: a child placed meanwhile would lose its place.
  // Before the object is taken: on PostgreSQL the check takes the tree's lock, which every write takes
  // before an object's row (a create relating to this object holds it shared while it waits for the row),
  // and the other order deadlocked a trashing against such creates (an absent object has no children)
  if (yield * tx.hasChildren(id)) return 'has children'
  if (!(yield * tx.exists(id))) return 'absent'
  // recorded while its parents and related objects are still linked: their reads hear of it
  yield * tx.appendChanges(objectTrashed(id))
  yield * tx.moveToTrash(id, userId, now)
  return 'trashed'
}

/**
 * Brings the object back: its rows, its relations whose other end exists, and its place under `parents`
 * (null: under the parents it had that still exist, at the priorities it had), then object.restored, so
 * all of them hear of it.
 */
export function * restoreFromTrash (tx: Tx, id: number, parents: number[] | null): Steps<'restored' | 'absent'> {
  const had = yield * tx.takeFromTrash(id)
  if (had === null) return 'absent'
  const places = parents === null ? had : parents.map((p) => ({ parent_id: p, priority: null }))
  for (const p of places) if (yield * tx.exists(p.parent_id)) yield * tx.placeChild(p.parent_id, id, p.priority)
  yield * tx.appendChanges(objectRestored(id))
  return 'restored'
}

export function * purgeFromTrash (tx: Tx, id: number): Steps<'purged' | 'absent'> {
  if (!(yield * tx.inTrash(id))) return 'absent'
  // recorded before the entry goes: the event's object type is read from it
  yield * tx.appendChanges(objectDeleted(id))
  yield * tx.purgeTrashed(id)
  yield * tx.dropRevisions(id, null)
  return 'purged'
}
