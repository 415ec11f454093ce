import type { Document } from 'mongodb'
import type { ListQuery, RelationItemWrite, RelationsReads } from '../../core/ports.js'
import type { RelatedRow, SavedRelationRow, Visibility } from '../../core/types.js'
import { allOf, filterMatch, joinObject, visibleMatch } from './rows.mongo.js'
import { relationLocks, takeLocks } from './link-locks.mongo.js'
import type { Collections, Tx } from './schema.mongo.js'
import { requireLinked } from './tree.mongo.js'

const ROW = { projection: { _id: 0, related_id: 1, priority: 1, params: 1 } } as const

function toRow (doc: { related_id: number, priority?: number | null, params?: string | null }): RelatedRow {
  return { related_id: doc.related_id, priority: doc.priority ?? null, params: doc.params ?? null }
}

/** Related objects in list order: priority (rows without one last), then related id. */
export function relatedPipeline (objectId: number, name: string, q: ListQuery): Document[] {
  return [
    { $match: { object_id: objectId, name } },
    ...joinObject('related_id'),
    { $match: allOf(visibleMatch(q.visibility), filterMatch(q.filter)) },
    { $addFields: { unranked: { $cond: [{ $eq: [{ $ifNull: ['$priority', null] }, null] }, 1, 0] } } },
    { $sort: { unranked: 1, priority: 1, related_id: 1 } },
    {
      $facet: {
        page: [{ $skip: q.offset }, { $limit: Math.max(1, q.limit) }, { $project: { _id: 0, related_id: 1, priority: 1, params: 1 } }],
        total: [{ $count: 'n' }],
      },
    },
  ]
}

/** Per relation name and object, the first `limit` visible rows, in list order: one aggregation for every name and object. */
export async function firstRelated (c: Collections, ids: number[], names: string[], vis: Visibility, limit: number): Promise<Map<string, Map<number, RelatedRow[]>>> {
  const out = new Map<string, Map<number, RelatedRow[]>>()
  if (ids.length === 0 || names.length === 0) return out
  const groups = await c.relations.aggregate<{ _id: { object_id: number, name: string }, rows: RelatedRow[] }>([
    { $match: { object_id: { $in: ids }, name: { $in: names } } },
    ...joinObject('related_id'),
    { $match: visibleMatch(vis) },
    { $addFields: { unranked: { $cond: [{ $eq: [{ $ifNull: ['$priority', null] }, null] }, 1, 0] } } },
    { $sort: { object_id: 1, name: 1, unranked: 1, priority: 1, related_id: 1 } },
    { $group: { _id: { object_id: '$object_id', name: '$name' }, rows: { $push: { related_id: '$related_id', priority: { $ifNull: ['$priority', null] }, params: { $ifNull: ['$params', null] } } } } },
    { $project: { rows: { $slice: ['$rows', limit] } } },
  ]).toArray()
  for (const g of groups) {
    let byObject = out.get(g._id.name)
    if (!byObject) { byObject = new Map(); out.set(g._id.name, byObject) }
    byObject.set(g._id.object_id, g.rows)
  }
  return out
}

export async function listRelated (c: Collections, objectId: number, name: string, q: ListQuery): Promise<{ items: RelatedRow[], total: number }> {
  type Result = { page: RelatedRow[], total: { n: number }[] }
  const [result] = await c.relations.aggregate<Result>(relatedPipeline(objectId, name, q)).toArray()
  return { items: (result?.page ?? []).slice(0, Math.max(0, q.limit)).map(toRow), total: result?.total[0]?.n ?? 0 }
}

export async function getRelation (c: Collections, objectId: number, name: string, relatedId: number, tx?: Tx): Promise<RelatedRow | null> {
  const doc = await c.relations.findOne({ object_id: objectId, name, related_id: relatedId }, { ...ROW, session: tx?.session })
  return doc ? toRow(doc) : null
}

export async function relationCounts (c: Collections, ids: number[], vis: Visibility, tx?: Tx): Promise<Map<number, Map<string, number>>> {
  const out = new Map<number, Map<string, number>>()
  if (ids.length === 0) return out
  const rows = await c.relations.aggregate<{ _id: { object_id: number, name: string }, n: number }>([
    { $match: { object_id: { $in: ids } } },
    ...joinObject('related_id'),
    { $match: visibleMatch(vis) },
    { $group: { _id: { object_id: '$object_id', name: '$name' }, n: { $sum: 1 } } },
    { $sort: { '_id.object_id': 1, '_id.name': 1 } },
  ], { session: tx?.session }).toArray()
  for (const r of rows) {
    let names = out.get(r._id.object_id)
    if (!names) { names = new Map(); out.set(r._id.object_id, names) }
    names.set(r._id.name, r.n)
  }
  return out
}

export async function neighbours (c: Collections, objectId: number): Promise<number[]> {
  return c.relations.distinct('related_id', { object_id: objectId })
}

async function nextPriority (tx: Tx, objectId: number, name: string): Promise<number> {
  const [last] = await tx.c.relations.find({ object_id: objectId, name, priority: { $ne: null } }, { projection: { priority: 1 }, session: tx.session })
    .sort({ priority: -1 }).limit(1).toArray()
  return (last?.priority ?? 0) + 1
}

async function upsert (tx: Tx, objectId: number, name: string, relatedId: number, set: { priority: number | null, params: string | null }): Promise<void> {
  await tx.c.relations.updateOne({ object_id: objectId, name, related_id: relatedId }, { $set: set }, { upsert: true, session: tx.session })
}

async function setInverseParams (tx: Tx, objectId: number, inverse: string, relatedId: number, params: string | null): Promise<void> {
  await tx.c.relations.updateOne({ object_id: relatedId, name: inverse, related_id: objectId }, { $set: { params } }, { session: tx.session })
}

/**
 * Creates `objectId -name-> related` and the inverse row, or updates an existing pair: a given
 * priority replaces the old one, given params replace the shared params.
 */
export async function saveRelation (tx: Tx, objectId: number, name: string, inverse: string, item: RelationItemWrite): Promise<SavedRelationRow> {
  const existing = await getRelation(tx.c, objectId, name, item.related_id, tx)
  if (existing) {
    const priority = item.priority ?? existing.priority
    const params = item.params ?? existing.params
    await upsert(tx, objectId, name, item.related_id, { priority, params })
    await setInverseParams(tx, objectId, inverse, item.related_id, params)
    return { related_id: item.related_id, priority, params, created: false }
  }
  await requireLinked(tx, [objectId, item.related_id])
  // a concurrent delete of either end meets these (link-locks.mongo.ts)
  await takeLocks(tx, relationLocks(objectId, item.related_id, tx.created))
  const priority = item.priority ?? await nextPriority(tx, objectId, name)
  await upsert(tx, objectId, name, item.related_id, { priority, params: item.params })
  const back = await getRelation(tx.c, item.related_id, inverse, objectId, tx)
  const backPriority = back?.priority ?? await nextPriority(tx, item.related_id, inverse)
  await upsert(tx, item.related_id, inverse, objectId, { priority: backPriority, params: item.params })
  return { related_id: item.related_id, priority, params: item.params, created: true }
}

/** Sets priority and params of an existing relation (absent values become null). */
export async function replaceRelation (tx: Tx, objectId: number, name: string, inverse: string, item: RelationItemWrite): Promise<boolean> {
  const result = await tx.c.relations.updateOne({ object_id: objectId, name, related_id: item.related_id },
    { $set: { priority: item.priority, params: item.params } }, { session: tx.session })
  if (result.matchedCount === 0) return false
  await setInverseParams(tx, objectId, inverse, item.related_id, item.params)
  return true
}

export async function removeRelation (tx: Tx, objectId: number, name: string, inverse: string, relatedId: number): Promise<boolean> {
  const removed = await tx.c.relations.deleteOne({ object_id: objectId, name, related_id: relatedId }, { session: tx.session })
  await tx.c.relations.deleteOne({ object_id: relatedId, name: inverse, related_id: objectId }, { session: tx.session })
  return removed.deletedCount > 0
}

export function relationsPort (c: Collections): RelationsReads {
  return {
    list: (id, name, q) => listRelated(c, id, name, q),
    get: (id, name, rel) => getRelation(c, id, name, rel),
    firstOf: (ids, names, vis, limit) => firstRelated(c, ids, names, vis, limit),
    counts: (ids, vis) => relationCounts(c, ids, vis),
    neighbours: (id) => neighbours(c, id),
  }
}
