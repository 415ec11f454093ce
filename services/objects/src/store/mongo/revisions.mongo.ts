import type { RevisionsPort } from '../../core/ports.js'
import { oldestKept, revisionDraft, type RevisionRecord, type RevisionsKeep } from '../../core/revisions.js'
import type { ObjectRecord } from '../../core/types.js'
import type { Collections, RevisionDoc, Tx } from './schema.mongo.js'

/** One revision of an object's own fields (decisions §16), keyed `<object_id>/<revision>`. */

/**
 * Records the revision of a write of object `id` (`before`: its record before, null when created; `after`:
 * as written), and drops the revisions past `keep`, inside the write's transaction.
 */
export async function recordRevision (tx: Tx, id: number, before: ObjectRecord | null, after: ObjectRecord | null, now: number, userId: number, keep: RevisionsKeep): Promise<void> {
  if (keep === 0 || after === null) return
  const draft = revisionDraft(before, after)
  if (draft === null) return
  const { c, session } = tx
  const [last] = await c.revisions.find({ object_id: id }, { projection: { revision: 1 }, session }).sort({ revision: -1 }).limit(1).toArray()
  const n = (last?.revision ?? 0) + 1
  await c.revisions.insertOne({ _id: `${id}/${n}`, object_id: id, revision: n, created: now, user_id: userId, changed: draft.changed, data: draft.data }, { session })
  if (keep !== null) await c.revisions.deleteMany({ object_id: id, revision: { $lt: oldestKept(n, keep) } }, { session })
}

/** The revisions of an object gone for good, inside its transaction. */
export async function dropRevisions (tx: Tx, id: number): Promise<void> {
  await tx.c.revisions.deleteMany({ object_id: id }, { session: tx.session })
}

const toRevision = (d: RevisionDoc): RevisionRecord => ({ revision: d.revision, created: d.created, user_id: d.user_id, changed: d.changed, data: d.data })

export function revisionsPort (c: Collections): RevisionsPort {
  return {
    list: async (id, offset, limit) => {
      const [items, total] = await Promise.all([
        c.revisions.find({ object_id: id }).sort({ revision: -1 }).skip(offset).limit(limit).toArray(),
        c.revisions.countDocuments({ object_id: id }),
      ])
      return { items: items.map(toRevision), total }
    },
    get: async (id, n) => {
      const doc = await c.revisions.findOne({ _id: `${id}/${n}` })
      return doc === null ? null : toRevision(doc)
    },
  }
}
