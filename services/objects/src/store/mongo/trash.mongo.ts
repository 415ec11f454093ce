import type { ObjectTypeName } from '../../core/object-types.js'
import type { TrashEntry, TrashedObject, TrashPort } from '../../core/ports.js'
import type { ObjectRecord } from '../../core/types.js'
import { emptyDetails } from '../../core/types.js'
import { objectDeleted, objectRestored, objectTrashed } from '../../core/write-events.js'
import { loadDetails } from './objects.mongo.js'
import { dropRevisions } from './revisions.mongo.js'
import { toRecord } from './rows.mongo.js'
import type { Collections, TrashDoc, Tx } from './schema.mongo.js'
import { placeChild } from './tree.mongo.js'
import { deleteObject } from './writes.mongo.js'

/**
 * The trash (decisions §16): a trashed object's document leaves `objects` (so no read or list changes),
 * kept in its trash document with its parents and both directions of its relations, until restored or
 * purged. Its nickname and file key stay indexed here: nicknamesTaken and filesInUse look here too.
 */

type Commit = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>

const toEntry = (d: Omit<TrashDoc, 'object' | 'details' | 'parents' | 'relations'>): TrashEntry => ({
  id: d._id, object_type: d.object_type as ObjectTypeName, read_groups: d.read_groups, write_groups: d.write_groups, deleted: d.deleted, user_id: d.user_id,
})
const ENTRY_PROJECTION = { object_type: 1, read_groups: 1, write_groups: 1, deleted: 1, user_id: 1 } as const

async function trashObject (tx: Tx, id: number, userId: number, now: number): Promise<boolean> {
  const { c, session } = tx
  const object = await c.objects.findOne({ _id: id }, { session })
  if (object === null) return false
  const [parents, relations, details] = await Promise.all([
    c.tree.find({ object_id: id }, { projection: { parent_id: 1, priority: 1 }, session }).sort({ seq: 1 }).toArray(),
    c.relations.find({ $or: [{ object_id: id }, { related_id: id }] }, { projection: { _id: 0 }, session }).toArray(),
    loadDetails(c, [id]),
  ])
  // recorded while its parents and related objects are still linked: their reads hear of it
  await tx.record(objectTrashed(id))
  await deleteObject({ ...tx, record: async () => {} }, id)
  await c.trash.insertOne({
    _id: id, object_type: object.object_type, nickname: object.nickname, read_groups: object.read_groups ?? [], write_groups: object.write_groups ?? [],
    deleted: now, user_id: userId, object, details: details.get(id) ?? emptyDetails(),
    parents: parents.map((p) => ({ parent_id: p.parent_id, priority: p.priority })), relations,
  }, { session })
  return true
}

async function restoreObject (tx: Tx, id: number, parents: number[] | null): Promise<boolean> {
  const { c, session } = tx
  const doc = await c.trash.findOne({ _id: id }, { session })
  if (doc === null) return false
  await c.trash.deleteOne({ _id: id }, { session })
  await c.objects.insertOne(doc.object, { session })
  const places = parents === null ? doc.parents : parents.map((p) => ({ parent_id: p, priority: null }))
  const others = [...places.map((p) => p.parent_id), ...doc.relations.map((r) => (r.object_id === id ? r.related_id : r.object_id))]
  const present = new Set((await c.objects.find({ _id: { $in: others } }, { projection: { _id: 1 }, session }).toArray()).map((d) => d._id))
  for (const p of places) if (present.has(p.parent_id)) await placeChild(tx, p.parent_id, id, p.priority)
  const otherEnd = (r: TrashDoc['relations'][number]) => (r.object_id === id ? r.related_id : r.object_id)
  const relations = doc.relations.filter((r) => present.has(otherEnd(r)))
  if (relations.length > 0) await c.relations.insertMany(relations, { session })
  // a relation whose other end is in the trash too goes into that entry: restoring it later brings it back
  for (const r of doc.relations.filter((r) => !present.has(otherEnd(r)))) {
    await c.trash.updateOne({ _id: otherEnd(r) }, { $addToSet: { relations: r } }, { session })
  }
  await tx.record(objectRestored(id))
  return true
}

export function trashPort (c: Collections, commit: Commit): TrashPort {
  return {
    put: (id, userId, now) => commit(async (tx) => (await trashObject(tx, id, userId, now) ? 'trashed' : 'absent')),
    list: async () => (await c.trash.find({}, { projection: ENTRY_PROJECTION }).sort({ deleted: -1, _id: -1 }).toArray()).map(toEntry),
    get: async (ids): Promise<TrashedObject[]> => (await c.trash.find({ _id: { $in: ids } }).toArray()).map((d) => ({
      ...toEntry(d), record: toRecord(d.object) as ObjectRecord, details: d.details, parent_ids: d.parents.map((p) => p.parent_id),
    })),
    restore: (id, parents) => commit(async (tx) => (await restoreObject(tx, id, parents) ? 'restored' : 'absent')),
    // recorded before the document goes: the event's object type is read from it
    purge: (id) => commit(async (tx) => {
      if (await tx.c.trash.findOne({ _id: id }, { projection: { _id: 1 }, session: tx.session }) === null) return 'absent'
      await tx.record(objectDeleted(id))
      await tx.c.trash.deleteOne({ _id: id }, { session: tx.session })
      await dropRevisions(tx, id)
      return 'purged'
    }),
    expired: async (before, limit) => (await c.trash.find({ deleted: { $lt: before } }, { projection: { _id: 1 } }).sort({ deleted: 1 }).limit(limit).toArray()).map((d) => d._id),
  }
}
