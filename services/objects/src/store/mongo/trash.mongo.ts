import type { ObjectTypeName } from '../../core/object-types.js'
import type { TrashEntry, TrashedObject, TrashReads } from '../../core/ports.js'
import type { ObjectRecord } from '../../core/types.js'
import { emptyDetails } from '../../core/types.js'
import type { TrashedPlace } from '../../core/write-steps.js'
import { relationLocks, takeLocks } from './link-locks.mongo.js'
import { loadDetails } from './objects.mongo.js'
import { toRecord } from './rows.mongo.js'
import type { Collections, TrashDoc, Tx } from './schema.mongo.js'
import { deleteObject } from './writes.mongo.js'

/**
 * The trash (decisions §16): a trashed object's document leaves `objects` (so no read or list changes),
 * kept in its trash document with its parents and both directions of its relations, until restored or
 * purged. Its nickname and file key stay indexed here: nicknamesTaken and filesInUse look here too.
 */

const toEntry = (d: Omit<TrashDoc, 'object' | 'details' | 'parents' | 'relations'>): TrashEntry => ({
  id: d._id, object_type: d.object_type as ObjectTypeName, read_groups: d.read_groups, write_groups: d.write_groups, deleted: d.deleted, user_id: d.user_id,
})
const ENTRY_PROJECTION = { object_type: 1, read_groups: 1, write_groups: 1, deleted: 1, user_id: 1 } as const

/** Moves the object's document into its trash document, with its parents and both directions of its relations. */
export async function moveToTrash (tx: Tx, id: number, userId: number, now: number): Promise<void> {
  const { c, session } = tx
  const object = await c.objects.findOne({ _id: id }, { session })
  if (object === null) return
  // one operation at a time in a transaction: the driver leaves parallel ones undefined
  const parents = await c.tree.find({ object_id: id }, { projection: { parent_id: 1, priority: 1 }, session }).sort({ seq: 1 }).toArray()
  const relations = await c.relations.find({ $or: [{ object_id: id }, { related_id: id }] }, { projection: { _id: 0 }, session }).toArray()
  const details = await loadDetails(c, [id], tx)
  await deleteObject(tx, id)
  await c.trash.insertOne({
    _id: id, object_type: object.object_type, nickname: object.nickname, read_groups: object.read_groups ?? [], write_groups: object.write_groups ?? [],
    deleted: now, user_id: userId, object, details: details.get(id) ?? emptyDetails(),
    parents: parents.map((p) => ({ parent_id: p.parent_id, priority: p.priority })), relations,
  }, { session })
}

/**
 * Puts the trashed object's document back, and its relations whose other end exists (a relation whose
 * other end is in the trash too goes into that entry); answers where it sat (null: not in the trash).
 */
export async function takeFromTrash (tx: Tx, id: number): Promise<TrashedPlace[] | null> {
  const { c, session } = tx
  const doc = await c.trash.findOne({ _id: id }, { session })
  if (doc === null) return null
  await c.trash.deleteOne({ _id: id }, { session })
  await c.objects.insertOne(doc.object, { session })
  const otherEnd = (r: TrashDoc['relations'][number]) => (r.object_id === id ? r.related_id : r.object_id)
  const others = [...new Set(doc.relations.map(otherEnd))]
  const present = new Set((await c.objects.find({ _id: { $in: others } }, { projection: { _id: 1 }, session }).toArray()).map((d) => d._id))
  const relations = doc.relations.filter((r) => present.has(otherEnd(r)))
  // links to the other ends again: a concurrent delete of one meets these (link-locks.mongo.ts)
  await takeLocks(tx, relations.flatMap((r) => relationLocks(id, otherEnd(r), tx.created)))
  if (relations.length > 0) await c.relations.insertMany(relations, { session })
  for (const r of doc.relations.filter((r) => !present.has(otherEnd(r)))) {
    await c.trash.updateOne({ _id: otherEnd(r) }, { $addToSet: { relations: r } }, { session })
  }
  return doc.parents
}

export async function inTrash (tx: Tx, id: number): Promise<boolean> {
  return await tx.c.trash.findOne({ _id: id }, { projection: { _id: 1 }, session: tx.session }) !== null
}

export async function purgeTrashed (tx: Tx, id: number): Promise<void> {
  await tx.c.trash.deleteOne({ _id: id }, { session: tx.session })
}

export function trashPort (c: Collections): TrashReads {
  return {
    list: async () => (await c.trash.find({}, { projection: ENTRY_PROJECTION }).sort({ deleted: -1, _id: -1 }).toArray()).map(toEntry),
    get: async (ids): Promise<TrashedObject[]> => (await c.trash.find({ _id: { $in: ids } }).toArray()).map((d) => ({
      ...toEntry(d), record: toRecord(d.object) as ObjectRecord, details: d.details, parent_ids: d.parents.map((p) => p.parent_id),
    })),
    expired: async (before, limit) => (await c.trash.find({ deleted: { $lt: before } }, { projection: { _id: 1 } }).sort({ deleted: 1 }).limit(limit).toArray()).map((d) => d._id),
  }
}
