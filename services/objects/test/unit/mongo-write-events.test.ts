// No MongoDB server exists on the build machines: this checks, against fake collections, that the MongoDB
// writes record core's events at the steps the SQLite ones do (their surroundings are read then); the
// outbox contract suite checks the events themselves on a real replica set with MONGODB_URL.
import { describe, expect, it } from 'vitest'
import type { ChangeDraft } from '../../src/core/change-events.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { Tx } from '../../src/store/mongo/schema.mongo.js'
import { deleteObject, insertObject, updateObject } from '../../src/store/mongo/writes.mongo.js'

const drafted = (d: ChangeDraft) => `${d.type} ${d.object_id}${'parent_id' in d ? ` < ${d.parent_id}` : ''}${'related_id' in d ? ` > ${d.related_id}` : ''}`

/**
 * A transaction over collections that answer every write as done and find only the tree edges and
 * relation pairs named in `existing`; answers the log of its writes and of the events it recorded.
 */
function fakeTx (existing: string[] = []) {
  const log: string[] = []
  const cursor = { sort: () => cursor, limit: () => cursor, toArray: async () => [] }
  const found = (name: string, filter: Record<string, unknown>) => {
    const key = name === 'tree' ? String(filter._id) : name === 'relations' ? `${filter.object_id} ${filter.name} ${filter.related_id}` : 'object'
    return key === 'object' || existing.includes(key) ? { _id: filter._id, priority: 1, params: null, related_id: filter.related_id } : null
  }
  const collection = (name: string) => new Proxy({}, {
    get: (_target, method: string) => (filter: Record<string, unknown>) => {
      if (method === 'find') return cursor
      if (method === 'findOne') return Promise.resolve(found(name, filter))
      if (method === 'findOneAndUpdate') return Promise.resolve({ seq: 10 })
      log.push(`${name}.${method}`)
      return Promise.resolve({ matchedCount: 99, deletedCount: 1 })
    },
  })
  const c = new Proxy({}, { get: (_target, name: string) => collection(name) })
  const tx = { c, session: {}, record: async (drafts: readonly ChangeDraft[]) => { log.push(`record ${drafts.map(drafted).join(', ')}`) } } as unknown as Tx
  return { tx, log }
}

const attach = (related_id: number) => ({ name: 'attach', inverse: 'attached_to', related_id, priority: null, params: null })
/** The log without the writes that only lock linked objects or restate ancestor lists. */
const steps = (log: string[]) => log.filter((l) => l.startsWith('record') || /^(objects\.(insertOne|updateOne|deleteOne)|tree\.(insertOne|deleteMany)|relations\.updateOne)$/.test(l))

describe('MongoDB writes record their events at the steps of the write', () => {
  it('when an object is created with links, then its creation is recorded once its document is in, its links once they are written', async () => {
    const { tx, log } = fakeTx()
    const id = await insertObject(tx, {
      object_type: 'document', nickname: 'n', status: 'on', columns: DEFAULT_COLUMNS, read_groups: [], write_groups: [], user_id: 1, extras: {},
      links: { parents: [2], relations: [attach(8)] },
    }, 1)
    expect(steps(log)).toEqual([
      'objects.insertOne', `record object.created ${id}`,
      'tree.insertOne', 'relations.updateOne', 'relations.updateOne',
      `record child.added ${id} < 2, relation.created ${id} > 8`,
    ])
  })

  it('when an update attaches a file and adds links, then its own events come before the links are written, and a parent it had records nothing', async () => {
    const { tx, log } = fakeTx(['2/5', '5 attach 8'])
    expect(await updateObject(tx, 5, {
      columns: { file: null }, user_id: 1, extras: {}, claim: { token_hash: 'h', now: 1 },
      links: { parents: [2, 3], relations: [attach(8), attach(9)] },
    }, 1)).toBe(true)
    expect(steps(log)).toEqual([
      'objects.updateOne', 'record object.updated 5, file.changed 5',
      'tree.insertOne', 'relations.updateOne', 'relations.updateOne', 'relations.updateOne', 'relations.updateOne',
      'record child.added 5 < 3, relation.updated 5 > 8, relation.created 5 > 9',
    ])
  })

  it('when an object is deleted, then its event is recorded before its documents go', async () => {
    const { tx, log } = fakeTx()
    expect(await deleteObject(tx, 5)).toBe(true)
    expect(steps(log)).toEqual(['record object.deleted 5', 'tree.deleteMany', 'objects.deleteOne'])
  })
})
