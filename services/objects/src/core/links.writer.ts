import { DomainError } from '@content/platform'
import { PlacementConflict } from './conflicts.js'
import type { IdempotencyClaim } from './idempotency.js'
import { aType, isTreeNode, type ObjectTypeName } from './object-types.js'
import { canRelate, inverseName, isRelationValidFor } from './relation-types.js'
import type { Caller, ObjectRecord, SavedChildRow, SavedRelationRow } from './types.js'
import { canRead } from './visibility.js'
import { bodyData, childItems, childPriority, relationItems, relationReplacement } from './write-body.js'
import { invalid, onTree, reachable, readableOther, writableObject, type WriteDeps } from './write-context.js'
import { placedUnderItself } from './writes/links.writes.js'

export function relationNameFor (type: ObjectTypeName, name: string): string {
  const inverse = inverseName(name)
  if (inverse === null || !isRelationValidFor(name, type)) {
    throw new DomainError('UNKNOWN_RELATION', `"${name}" is not a relation of ${type} objects`)
  }
  return inverse
}

/** Related objects must exist, fit the relation's types and be reachable by the writer. */
export async function checkRelated (deps: WriteDeps, caller: Caller, subject: { id: number, object_type: ObjectTypeName }, name: string, relatedIds: number[]): Promise<void> {
  const records = new Map((await deps.reads.store.objects.listByIds(relatedIds)).map((r) => [r.id, r]))
  for (const id of relatedIds) {
    const related = records.get(id)
    const field = `relations.${name}`
    if (related === undefined || !(await reachable(deps, caller, related))) throw invalid({ [field]: `object ${id} does not exist or is not reachable` })
    if (id === subject.id) throw invalid({ [field]: 'an object cannot relate to itself' })
    if (!canRelate(name, subject.object_type, related.object_type)) throw invalid({ [field]: `${aType(subject.object_type)} cannot relate to ${aType(related.object_type)} with "${name}"` })
  }
}

/** `bodyJson`: the write body as sent; its `data` (write-body.ts) is checked once the caller may write the object. */
export async function saveRelations (deps: WriteDeps, caller: Caller, objectId: string, name: string, bodyJson: string | undefined,
  idempotency?: IdempotencyClaim): Promise<SavedRelationRow[]> {
  const record = await writableObject(deps, caller, objectId)
  const inverse = relationNameFor(record.object_type, name)
  const items = relationItems(bodyData(bodyJson))
  // one answer item per saved relation: a second copy would be reported as saved with a priority it does not have
  if (new Set(items.map((i) => i.related_id)).size !== items.length) throw invalid({ related_id: 'a related object is listed twice' })
  await checkRelated(deps, caller, record, name, items.map((i) => i.related_id))
  return deps.reads.store.relations.save(record.id, name, inverse, items, idempotency)
}

export async function replaceRelation (deps: WriteDeps, caller: Caller, objectId: string, name: string, relatedId: number,
  bodyJson: string | undefined): Promise<{ priority: number | null, params: string | null }> {
  const record = await writableObject(deps, caller, objectId)
  const inverse = relationNameFor(record.object_type, name)
  const change = relationReplacement(bodyData(bodyJson))
  const item = { related_id: relatedId, ...change }
  if (await readableOther(deps, caller, relatedId) === undefined) throw relationNotFound(record.id, name, relatedId)
  if (!(await deps.reads.store.relations.replace(record.id, name, inverse, item))) throw relationNotFound(record.id, name, relatedId)
  return change
}

export async function deleteRelation (deps: WriteDeps, caller: Caller, objectId: string, name: string, relatedId: number): Promise<void> {
  const record = await writableObject(deps, caller, objectId)
  const inverse = relationNameFor(record.object_type, name)
  if (await readableOther(deps, caller, relatedId) === undefined) throw relationNotFound(record.id, name, relatedId)
  if (await deps.reads.store.relations.remove(record.id, name, inverse, relatedId) === 'absent') throw relationNotFound(record.id, name, relatedId)
}

const relationNotFound = (id: number, name: string, relatedId: number) =>
  new DomainError('RELATION_NOT_FOUND', `object ${id} has no "${name}" relation to ${relatedId}`)
const childNotFound = (id: number, childId: number) =>
  new DomainError('CHILD_NOT_FOUND', `object ${childId} is not a child of ${id}`)

function requireNode (record: ObjectRecord): void {
  if (!isTreeNode(record.object_type)) {
    throw new DomainError('NOT_A_TREE_NODE', `object ${record.id} is ${aType(record.object_type)}; only areas and sections have children`)
  }
}

/** A child must exist, be readable, not be an ancestor of the parent, and a section keeps one parent. */
export async function checkPlacement (deps: WriteDeps, caller: Caller, parentId: number, child: ObjectRecord | undefined, childId: number): Promise<void> {
  const { tree } = deps.reads.store
  if (child === undefined || !canRead(child, caller.groups)) throw invalid({ child_id: `object ${childId} does not exist or is not reachable` })
  if (child.id === parentId || await tree.isAncestor(child.id, parentId)) throw placedUnderItself(childId)
  if (child.object_type === 'area') throw invalid({ child_id: 'the publication cannot be placed under another object' })
  if (child.object_type === 'section') {
    const parents = await tree.parents(child.id)
    if (parents.some((p) => p !== parentId)) throw invalid({ child_id: `section ${childId} already has a parent` })
  }
}

export async function saveChildren (deps: WriteDeps, caller: Caller, objectId: string, bodyJson: string | undefined,
  idempotency?: IdempotencyClaim): Promise<SavedChildRow[]> {
  const record = await writableObject(deps, caller, objectId)
  requireNode(record)
  const items = childItems(bodyData(bodyJson))
  if (new Set(items.map((i) => i.child_id)).size !== items.length) throw invalid({ child_id: 'a child is listed twice' })
  const children = new Map((await deps.reads.store.objects.listByIds(items.map((i) => i.child_id))).map((r) => [r.id, r]))
  for (const item of items) await checkPlacement(deps, caller, record.id, children.get(item.child_id), item.child_id)
  if (!(await onTree(deps, record.id))) throw invalid({ object_id: `object ${record.id} is not on the publication tree` })
  try {
    return await deps.reads.store.tree.addChildren(record.id, items, idempotency)
  } catch (err) {
    if (err instanceof PlacementConflict) throw placementChanged('child_id')
    throw err
  }
}

/** What checkPlacement checked no longer held when the write ran: a concurrent write moved the tree (PlacementConflict). */
export const placementChanged = (field: string): DomainError =>
  invalid({ [field]: 'a concurrent write changed the tree: the child would be placed under itself or its own descendant, or a section would get a second parent' })

export async function updateChild (deps: WriteDeps, caller: Caller, objectId: string, childId: number, bodyJson: string | undefined): Promise<number> {
  const record = await writableObject(deps, caller, objectId)
  requireNode(record)
  const priority = childPriority(bodyData(bodyJson))
  if (await readableOther(deps, caller, childId) === undefined) throw childNotFound(record.id, childId)
  if (!(await deps.reads.store.tree.setPriority(record.id, childId, priority))) throw childNotFound(record.id, childId)
  return priority
}

export async function removeChild (deps: WriteDeps, caller: Caller, objectId: string, childId: number): Promise<void> {
  const record = await writableObject(deps, caller, objectId)
  requireNode(record)
  const { store } = deps.reads
  const child = await readableOther(deps, caller, childId)
  if (child === undefined || await store.tree.position(record.id, childId) === null) throw childNotFound(record.id, childId)
  if (child.object_type === 'section') throw invalid({ child_id: `section ${childId} cannot be left without a parent` })
  if (await store.tree.removeChild(record.id, childId) === 'absent') throw childNotFound(record.id, childId)
}
