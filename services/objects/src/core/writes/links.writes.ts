import type { IdempotencyClaim } from '../idempotency.js'
import type { RelationItemWrite } from '../ports.js'
import type { SavedChildRow, SavedRelationRow } from '../types.js'
import type { Steps, Tx } from '../unit-of-work.js'
import { childRemoved, childrenSaved, relationRemoved, relationReplaced, relationsSaved } from '../write-events.js'
import { invalid } from '../write-context.js'
import { keepOutcome } from './kept-rows.writes.js'

/*
 * The tree and relation writes of TreePort and RelationsPort, each composed once of the store's steps:
 * the rows first, then their events, then the idempotency key.
 */

/** The refusal of a placement that would make a cycle. */
export const placedUnderItself = (childId: number) => invalid({ child_id: `object ${childId} cannot be placed under itself or its own descendant` })

/**
 * Places an existing object under `parentId`, refused when that would make a cycle. Checked here, in the
 * write's transaction, as well as by the rules before it: a concurrent move checked against the tree as
 * it was must not commit a cycle.
 */
export function * placeUnder (tx: Tx, parentId: number, childId: number, priority: number | null): Steps<SavedChildRow> {
  if (childId === parentId || (yield * tx.isAncestor(childId, parentId))) {
    throw placedUnderItself(childId)
  }
  return yield * tx.placeChild(parentId, childId, priority)
}

export function * addChildren (tx: Tx, parentId: number, items: { child_id: number, priority: number | null }[], idempotency?: IdempotencyClaim): Steps<SavedChildRow[]> {
  const saved: SavedChildRow[] = []
  for (const item of items) saved.push(yield * placeUnder(tx, parentId, item.child_id, item.priority))
  yield * tx.appendChanges(childrenSaved(parentId, saved))
  yield * keepOutcome(tx, idempotency, { kind: 'children', items: saved })
  return saved
}

/** A child's new priority; false when it is not a child of `parentId`. */
export function * setPriority (tx: Tx, parentId: number, childId: number, priority: number): Steps<boolean> {
  if ((yield * tx.position(parentId, childId)) === null) return false
  yield * tx.appendChanges(childrenSaved(parentId, [yield * tx.placeChild(parentId, childId, priority)]))
  return true
}

export function * removeChild (tx: Tx, parentId: number, childId: number): Steps<'removed' | 'absent'> {
  const removed = yield * tx.unplaceChild(parentId, childId)
  yield * tx.appendChanges(childRemoved(parentId, childId, removed))
  return removed ? 'removed' : 'absent'
}

export function * saveRelations (tx: Tx, objectId: number, name: string, inverse: string, items: RelationItemWrite[], idempotency?: IdempotencyClaim): Steps<SavedRelationRow[]> {
  const saved: SavedRelationRow[] = []
  for (const item of items) saved.push(yield * tx.saveRelation(objectId, name, inverse, item))
  yield * tx.appendChanges(relationsSaved(objectId, name, saved))
  yield * keepOutcome(tx, idempotency, { kind: 'relations', items: saved })
  return saved
}

export function * replaceRelation (tx: Tx, objectId: number, name: string, inverse: string, item: RelationItemWrite): Steps<boolean> {
  const replaced = yield * tx.replaceRelation(objectId, name, inverse, item)
  yield * tx.appendChanges(relationReplaced(objectId, name, item.related_id, replaced))
  return replaced
}

export function * removeRelation (tx: Tx, objectId: number, name: string, inverse: string, relatedId: number): Steps<'removed' | 'absent'> {
  const removed = yield * tx.removeRelation(objectId, name, inverse, relatedId)
  yield * tx.appendChanges(relationRemoved(objectId, name, relatedId, removed))
  return removed ? 'removed' : 'absent'
}
