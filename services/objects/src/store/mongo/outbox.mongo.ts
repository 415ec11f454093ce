import { accessSnapshot, affectedIds, otherEnd, recordedAccess, rowAccess, surroundingsNeeded, type AccessColumns, type AccessSnapshot, type ChangeDraft, type ChangeEvent } from '../../core/change-events.js'
import type { Status } from '../../core/types.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ChangesPort } from '../../core/ports.js'
import { present } from '@content/platform'
import type { ChangeDoc, Collections, Tx } from './schema.mongo.js'

/** An event of a transaction in progress; numbered when the transaction is about to commit. */
export type PendingChange = Omit<ChangeEvent, 'seq' | 'at'>

/** The counter document that numbers the outbox. */
export const CHANGES_SEQUENCE = 'changes'

/**
 * Resolves what a change affects, inside the transaction at the moment the change is made (a deletion
 * is recorded before its documents go).
 */
export async function pendingChange (tx: Tx, draft: ChangeDraft): Promise<PendingChange> {
  const { c, session } = tx
  const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
  const related = 'related_id' in draft ? draft.related_id : undefined
  const parent = 'parent_id' in draft ? draft.parent_id : undefined
  const ids = [draft.object_id, ...(related === undefined ? [] : [related]), ...(parent === undefined ? [] : [parent])]
  // one operation at a time in a transaction: the driver leaves parallel ones undefined
  const types = await c.objects.find({ _id: { $in: ids } }, { projection: { object_type: 1 }, session }).toArray()
  const ancestorEdges = ancestorsOf === null ? [] : await c.tree.find({ object_id: ancestorsOf }, { projection: { ancestors: 1 }, session }).toArray()
  const parentEdges = linksOf === null ? [] : await c.tree.find({ object_id: linksOf }, { projection: { parent_id: 1 }, session }).toArray()
  const neighbours = linksOf === null ? [] : await c.relations.distinct('related_id', { object_id: linksOf }, { session })
  const known: { _id: number, object_type: string }[] = types
  // a purged object's type comes from its trash document, recorded before it goes
  if (!known.some((t) => t._id === draft.object_id)) known.push(...await c.trash.find({ _id: draft.object_id }, { projection: { object_type: 1 }, session }).toArray())
  const typeOf = (id: number) => (known.find((t) => t._id === id)?.object_type ?? '') as ObjectTypeName | ''
  const affects = affectedIds(draft, {
    ancestors: ancestorsOf === null ? [] : [ancestorsOf, ...ancestorEdges.flatMap((e) => e.ancestors)],
    parents: parentEdges.map((e) => e.parent_id),
    neighbours,
  })
  const event: PendingChange = { type: draft.type, object_id: draft.object_id, object_type: typeOf(draft.object_id), affects }
  if ('relation' in draft) event.relation = draft.relation
  if (related !== undefined) Object.assign(event, { related_id: related, related_type: typeOf(related) })
  if (parent !== undefined) Object.assign(event, { parent_id: parent, parent_type: typeOf(parent) })
  const other = otherEnd(draft)
  const otherColumns = other === null ? null : await columnsNow(tx, other)
  const access = recordedAccess(draft, await accessNow(tx, draft.object_id), otherColumns === null ? null : rowAccess(otherColumns))
  if (access !== null) event.access = access
  return event
}

/** The object's access fields as they stand in the transaction (null: its document is gone, as a purged object's). */
export async function columnsNow ({ c, session }: Tx, id: number): Promise<AccessColumns | null> {
  const doc = await c.objects.findOne({ _id: id }, { projection: { status: 1, read_groups: 1, write_groups: 1, start_date: 1, end_date: 1 }, session })
  return doc === null
    ? null
    : { status: doc.status as Status, read_groups: doc.read_groups, write_groups: doc.write_groups, start_date: doc.start_date ?? null, end_date: doc.end_date ?? null }
}

/** The object's access as it stands in the transaction (null: its document is gone). */
async function accessNow (tx: Tx, id: number): Promise<AccessSnapshot | null> {
  const columns = await columnsNow(tx, id)
  if (columns === null) return null
  const edges = await tx.c.tree.find({ object_id: id }, { projection: { parent_id: 1, ancestors: 1 }, sort: { seq: 1 }, session: tx.session }).toArray()
  const parents = edges.map((e) => e.parent_id)
  return accessSnapshot(columns, id, parents, [...new Set([...parents, ...edges.flatMap((e) => e.ancestors)])])
}

/**
 * Numbers and stores a transaction's events, as its last writes; returns the last number (0: none).
 * Reserving the numbers writes one counter document, so concurrent writers conflict there and commit in
 * number order: a consumer reading "after n" never skips an event that commits later with a lower number.
 * It is the one document every write with events writes, and the last: two writes conflict there only
 * when their commits overlap, not for the whole of their transactions (ids come from blocks, ids.mongo.ts;
 * links lock stripes, link-locks.mongo.ts).
 */
export async function appendChanges (tx: Tx, pending: PendingChange[], at: number): Promise<number> {
  if (pending.length === 0) return 0
  const counter = await tx.c.counters.findOneAndUpdate(
    { _id: CHANGES_SEQUENCE }, { $inc: { seq: pending.length } }, { upsert: true, returnDocument: 'after', session: tx.session })
  const first = present(counter, 'the changes counter').seq - pending.length + 1
  const docs: ChangeDoc[] = pending.map((p, i) => ({ ...p, _id: first + i, at }))
  await tx.c.changes.insertMany(docs, { session: tx.session })
  return first + pending.length - 1
}

function toEvent ({ _id, ...rest }: ChangeDoc): ChangeEvent {
  return { seq: _id, ...rest }
}

export async function changesAfter (c: Collections, seq: number, limit: number): Promise<ChangeEvent[]> {
  return (await c.changes.find({ _id: { $gt: seq } }).sort({ _id: 1 }).limit(limit).toArray()).map(toEvent)
}

export async function changeBounds (c: Collections): Promise<{ first: number | null, last: number }> {
  const [oldest, counter] = await Promise.all([
    c.changes.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(1).next(),
    c.counters.findOne({ _id: CHANGES_SEQUENCE }),
  ])
  return { first: oldest?._id ?? null, last: counter?.seq ?? 0 }
}

export async function pruneChanges (c: Collections, before: number, keepAfter: number): Promise<number> {
  return (await c.changes.deleteMany({ at: { $lt: before }, _id: { $lte: keepAfter } })).deletedCount
}

export function changesPort (c: Collections): ChangesPort {
  return {
    after: (seq, limit) => changesAfter(c, seq, limit),
    bounds: () => changeBounds(c),
    prune: (before, keepAfter) => pruneChanges(c, before, keepAfter),
  }
}
