import type { RevisionsPort } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { Collections, RevisionDoc, Tx } from './schema.mongo.js'

/** One revision of an object's own fields (decisions §16), keyed `<object_id>/<revision>`. */

/** Stores the object's next revision, keyed `<object_id>/<revision>`; answers its number. */
export async function addRevision (tx: Tx, id: number, revision: Omit<RevisionRecord, 'revision'>): Promise<number> {
  const { c, session } = tx
  const [last] = await c.revisions.find({ object_id: id }, { projection: { revision: 1 }, session }).sort({ revision: -1 }).limit(1).toArray()
  const n = (last?.revision ?? 0) + 1
  await c.revisions.insertOne({ _id: `${id}/${n}`, object_id: id, revision: n, ...revision }, { session })
  return n
}

/** Drops the object's revisions numbered below `below` (null: all). */
export async function dropRevisions (tx: Tx, id: number, below: number | null): Promise<void> {
  await tx.c.revisions.deleteMany(below === null ? { object_id: id } : { object_id: id, revision: { $lt: below } }, { session: tx.session })
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
