import type { AnyBulkWriteOperation, Document } from 'mongodb'
import type { ChildCounts, ChildScope, IdPage, ListQuery, TreeReads } from '../../core/ports.js'
import type { SavedChildRow, Visibility } from '../../core/types.js'
import { ancestorsUnder, firstParentChain, reroot } from './ancestry.mongo.js'
import { JOINED, allOf, filterMatch, joinObject, pageStage, toIdPage, visibleMatch, type PageResult } from './rows.mongo.js'
import { DomainError } from '@content/platform'
import { edgeLocks, takeLocks, wholeLocks } from './link-locks.mongo.js'
import { edgeId, type Collections, type TreeDoc, type Tx } from './schema.mongo.js'

const SCOPE: Record<ChildScope, Document> = {
  all: {},
  sections: { [`${JOINED}.object_type`]: 'section' },
  contents: { [`${JOINED}.object_type`]: { $ne: 'section' } },
}

/** Children in list order: the `children` index serves the match and the sort; then the objects are joined and filtered. */
export function childrenPipeline (parentId: number, scope: ChildScope, q: ListQuery): Document[] {
  const match: Document = { parent_id: parentId }
  if (q.exclude !== undefined) match.object_id = { $ne: q.exclude }
  return [
    { $match: match },
    { $sort: { priority: 1, object_id: 1 } },
    ...joinObject('object_id'),
    { $match: allOf(SCOPE[scope], visibleMatch(q.visibility), filterMatch(q.filter)) },
    pageStage('object_id', q.offset, q.limit),
  ]
}

/**
 * Every object below the node in ONE indexed query: the edges whose `ancestors` hold the node (their
 * parent is inside the subtree), grouped per object; the tree order uses the lowest priority among them.
 */
export function descendantsPipeline (nodeId: number, order: 'tree' | 'id', q: ListQuery): Document[] {
  return [
    { $match: { ancestors: nodeId } },
    { $group: { _id: '$object_id', priority: { $min: '$priority' } } },
    ...joinObject('_id'),
    { $match: allOf(visibleMatch(q.visibility), filterMatch(q.filter)) },
    { $sort: order === 'id' ? { _id: 1 } : { priority: 1, _id: 1 } },
    pageStage('_id', q.offset, q.limit),
  ]
}

export async function listChildren (c: Collections, parentId: number, scope: ChildScope, q: ListQuery): Promise<IdPage> {
  const [result] = await c.tree.aggregate<PageResult>(childrenPipeline(parentId, scope, q)).toArray()
  return toIdPage(result, q.limit)
}

export async function listDescendants (c: Collections, nodeId: number, order: 'tree' | 'id', q: ListQuery): Promise<IdPage> {
  const [result] = await c.tree.aggregate<PageResult>(descendantsPipeline(nodeId, order, q), { allowDiskUse: true }).toArray()
  return toIdPage(result, q.limit)
}

export async function parentsOf (c: Collections, objectId: number): Promise<number[]> {
  const edges = await c.tree.find({ object_id: objectId }, { projection: { parent_id: 1 } }).sort({ seq: 1 }).toArray()
  return edges.map((e) => e.parent_id)
}

/** Two queries whatever the depth: the object's edges name every ancestor; their edges give each first parent. */
export async function ancestorsOf (c: Collections, objectId: number): Promise<number[]> {
  const own = await c.tree.find({ object_id: objectId }, { projection: { parent_id: 1, object_id: 1, seq: 1, ancestors: 1 } }).toArray()
  if (own.length === 0) return []
  const above = [...new Set(own.flatMap((e) => e.ancestors))]
  const edges = await c.tree.find({ object_id: { $in: above } }, { projection: { parent_id: 1, object_id: 1, seq: 1 } }).toArray()
  return firstParentChain(objectId, [...own, ...edges])
}

export async function childCounts (c: Collections, parentIds: number[], vis: Visibility, tx?: Tx): Promise<Map<number, ChildCounts>> {
  const out = new Map<number, ChildCounts>()
  if (parentIds.length === 0) return out
  const isSection = { $eq: [`$${JOINED}.object_type`, 'section'] }
  const rows = await c.tree.aggregate<{ _id: number, sections: number, contents: number }>([
    { $match: { parent_id: { $in: parentIds } } },
    ...joinObject('object_id'),
    { $match: visibleMatch(vis) },
    { $group: { _id: '$parent_id', sections: { $sum: { $cond: [isSection, 1, 0] } }, contents: { $sum: { $cond: [isSection, 0, 1] } } } },
  ], { session: tx?.session }).toArray()
  for (const r of rows) out.set(r._id, { sections: r.sections, contents: r.contents })
  return out
}

export async function positionOf (c: Collections, parentId: number, childId: number, tx?: Tx): Promise<number | null> {
  const edge = await c.tree.findOne({ _id: edgeId(parentId, childId) }, { projection: { priority: 1 }, session: tx?.session })
  return edge?.priority ?? null
}

/** Like the SQLite closure, an existing object counts as its own ancestor. */
export async function isAncestor (c: Collections, ancestorId: number, descendantId: number, tx?: Tx): Promise<boolean> {
  const session = tx?.session
  if (ancestorId === descendantId) return (await c.objects.countDocuments({ _id: ancestorId }, { limit: 1, session })) > 0
  return (await c.tree.countDocuments({ object_id: descendantId, ancestors: ancestorId }, { limit: 1, session })) > 0
}

export async function hasChildren (c: Collections, parentId: number): Promise<boolean> {
  return (await c.tree.countDocuments({ parent_id: parentId }, { limit: 1 })) > 0
}

/** Both ends of a link must be there (a delete committed before the transaction began is seen here; a concurrent one meets its locks). */
export async function requireLinked (tx: Tx, ids: number[]): Promise<void> {
  const unique = [...new Set(ids)]
  if (await tx.c.objects.countDocuments({ _id: { $in: unique } }, { session: tx.session }) < unique.length) {
    throw new DomainError('VALIDATION_FAILED', 'an object this write links to was deleted meanwhile', { objects: unique })
  }
}

/** Places `childId` under `parentId` (a new edge is appended when no priority is given) or moves it among its siblings. */
export async function placeChild (tx: Tx, parentId: number, childId: number, priority: number | null): Promise<SavedChildRow> {
  const { c, session } = tx
  const current = await positionOf(c, parentId, childId, tx)
  if (current !== null) {
    if (priority !== null && priority !== current) await c.tree.updateOne({ _id: edgeId(parentId, childId) }, { $set: { priority } }, { session })
    return { child_id: childId, priority: priority ?? current, created: false }
  }
  await requireLinked(tx, [parentId, childId])
  const last = await c.tree.find({ parent_id: parentId }, { projection: { priority: 1 }, session }).sort({ priority: -1 }).limit(1).toArray()
  const next = priority ?? (last[0]?.priority ?? 0) + 1
  const parentEdges = await c.tree.find({ object_id: parentId }, { projection: { ancestors: 1 }, session }).toArray()
  const ancestors = ancestorsUnder(parentId, parentEdges)
  // the list was read from the parent's edges and the child's subtree changes: see link-locks.mongo.ts
  await takeLocks(tx, edgeLocks(ancestors, childId, tx.created))
  const [lastEdge] = await c.tree.find({ object_id: childId }, { projection: { seq: 1 }, session }).sort({ seq: -1 }).limit(1).toArray()
  await c.tree.insertOne({ _id: edgeId(parentId, childId), parent_id: parentId, object_id: childId, priority: next, seq: (lastEdge?.seq ?? 0) + 1, ancestors }, { session })
  // Everything under the child gains the new ancestors; adding an edge never takes one away.
  await c.tree.updateMany({ ancestors: childId }, { $addToSet: { ancestors: { $each: ancestors } } }, { session })
  return { child_id: childId, priority: next, created: true }
}

/** Removes the edge and recomputes the lists below the child. */
export async function unplaceChild (tx: Tx, parentId: number, childId: number): Promise<boolean> {
  const removed = await tx.c.tree.deleteOne({ _id: edgeId(parentId, childId) }, { session: tx.session })
  if (removed.deletedCount === 0) return false
  await rerootBelow(tx, childId)
  return true
}

/** After an edge into `rootId` is gone: the edges below it lose the ancestors only that edge gave. */
export async function rerootBelow (tx: Tx, rootId: number): Promise<void> {
  const { c, session } = tx
  await takeLocks(tx, wholeLocks(rootId, tx.created))
  const projection = { parent_id: 1, object_id: 1, seq: 1, ancestors: 1 }
  const below = await c.tree.find({ ancestors: rootId }, { projection, session }).toArray()
  if (below.length === 0) return
  const nodes = [...new Set([rootId, ...below.map((e) => e.object_id)])]
  const placing = await c.tree.find({ object_id: { $in: nodes } }, { projection, session }).toArray()
  const changes = reroot(below, placing)
  if (changes.length === 0) return
  const ops: AnyBulkWriteOperation<TreeDoc>[] = changes.map((ch) => ({ updateOne: { filter: { _id: ch._id }, update: { $set: { ancestors: ch.ancestors } } } }))
  await c.tree.bulkWrite(ops, { session, ordered: false })
}

export function treePort (c: Collections): TreeReads {
  return {
    children: (parentId, scope, q) => listChildren(c, parentId, scope, q),
    descendants: (nodeId, order, q) => listDescendants(c, nodeId, order, q),
    parents: (id) => parentsOf(c, id),
    ancestors: (id) => ancestorsOf(c, id),
    childCounts: (ids, vis) => childCounts(c, ids, vis),
    position: (p, ch) => positionOf(c, p, ch),
    hasChildren: (p) => hasChildren(c, p),
    isAncestor: (a, d) => isAncestor(c, a, d),
  }
}
