import { EventEmitter } from 'node:events'
import { loadConfig } from '@content/platform'
import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import { Binary, type Db, type Document } from 'mongodb'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { objectsEnv } from '../../src/config.js'
import type { ListQuery } from '../../src/core/ports.js'
import { ancestorsUnder, firstParentChain, reroot, type EdgeRow } from '../../src/store/mongo/ancestry.mongo.js'
import { ChangeWatcher, watchPipeline } from '../../src/store/mongo/change-stream.mongo.js'
import { relatedPipeline } from '../../src/store/mongo/relations.mongo.js'
import { RECORD_PROJECTION, filterMatch } from '../../src/store/mongo/rows.mongo.js'
import { INDEXES, OBJECTS_MONGO_MIGRATIONS, type Collections, type Tx } from '../../src/store/mongo/schema.mongo.js'
import { childrenPipeline, descendantsPipeline, listDescendants } from '../../src/store/mongo/tree.mongo.js'
import { claimUpload, filesInUse, getUpload } from '../../src/store/mongo/uploads.mongo.js'
import { UploadClaimConflict } from '../../src/core/conflicts.js'
import { must } from '../support/must.js'

// No MongoDB server exists here: these check the adapter's own logic and its query shapes against
// its index specs. The contract suite (store.mongo.test.ts) checks behaviour on a real replica set.

const edge = (parent_id: number, object_id: number, seq: number, ancestors: number[]): EdgeRow =>
  ({ _id: `${parent_id}/${object_id}`, parent_id, object_id, seq, ancestors })

describe('tree ancestor lists', () => {
  it('when an edge is placed, then its list is the parent plus every ancestor of the parent, once', () => {
    expect(ancestorsUnder(1, [])).toEqual([1])
    expect(ancestorsUnder(4, [{ ancestors: [3, 1] }, { ancestors: [2, 1] }])).toEqual([4, 3, 1, 2])
  })

  // 1 → s2 → s3 → d(5), and 1 → d(5) directly; the edge 1 → s2 has been removed, s2 is re-rooted.
  const below = [edge(2, 3, 2, [2, 1]), edge(3, 5, 3, [3, 2, 1]), edge(1, 5, 4, [1])]
  it.each([
    ['s2 now has no parent: everything below loses 1, except where another path keeps it',
      [], below.slice(0, 2), [{ _id: '2/3', ancestors: [2] }, { _id: '3/5', ancestors: [3, 2] }]],
    ['s2 still sits under 9 → 1: only what came through the removed edge changes',
      [edge(9, 2, 5, [9, 1])], below.slice(0, 2), [{ _id: '2/3', ancestors: [2, 9, 1] }, { _id: '3/5', ancestors: [3, 2, 9, 1] }]],
    ['s2 sits under 1 another way: nothing changes',
      [edge(7, 2, 6, [7, 1])], [edge(2, 3, 2, [2, 7, 1]), edge(3, 5, 3, [3, 2, 7, 1])], []],
  ] as const)('when %s', (_name, rootEdges, stale, expected) => {
    const placing = [...rootEdges, ...stale, edge(1, 5, 4, [1])]
    const changes = reroot([...stale], placing).map((c) => ({ _id: c._id, ancestors: [...c.ancestors].sort() }))
    expect(changes).toEqual(expected.map((c) => ({ _id: c._id, ancestors: [...c.ancestors].sort() })))
  })

  it('when the edges form a cycle, then re-rooting refuses instead of looping', () => {
    const cyclic = [edge(3, 2, 1, [3, 2]), edge(2, 3, 2, [2, 3])]
    expect(() => reroot(cyclic, cyclic)).toThrow(/cycle/)
  })

  it('when an object has several parents, then the chain follows the first placed at every level', () => {
    const edges = [edge(1, 2, 1, [1]), edge(1, 3, 2, [1]), edge(2, 4, 3, [2, 1]), edge(3, 5, 5, [3, 1]), edge(4, 5, 4, [4, 2, 1])]
    expect(firstParentChain(5, edges)).toEqual([1, 2, 4])
    expect(firstParentChain(1, edges)).toEqual([])
  })
})

const query = (over: Partial<ListQuery> = {}): ListQuery => ({
  visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' }, offset: 0, limit: 10, ...over,
})

/** Whether an index of `indexes` serves equality on `equal` followed by a sort on `sort`. */
function served (indexes: { key: Document }[], equal: string[], sort: string[] = []): boolean {
  const wanted = [...equal, ...sort]
  return indexes.some((i) => {
    const fields = Object.keys(i.key)
    return fields.slice(0, equal.length).sort().join() === [...equal].sort().join() &&
      fields.slice(equal.length, wanted.length).join() === sort.join()
  })
}
const equalities = (match: Document) => Object.keys(match).filter((k) => typeof match[k] !== 'object')

describe('query shapes against the declared indexes', () => {
  it('when children are listed, then the leading match and sort are served by a tree index', () => {
    const [match, sort] = childrenPipeline(4, 'all', query({ exclude: 9 }))
    expect(served(INDEXES.tree, equalities(must(match).$match), Object.keys(must(sort).$sort))).toBe(true)
  })

  it('when descendants are listed, then the one query starts on the ancestors index', () => {
    const [match] = descendantsPipeline(1, 'tree', query())
    expect(match).toEqual({ $match: { ancestors: 1 } })
    expect(served(INDEXES.tree, equalities(must(match).$match))).toBe(true)
  })

  it('when related objects are listed, then the leading match is served by a relations index', () => {
    const [match] = relatedPipeline(4, 'attach', query())
    expect(served(INDEXES.relations, equalities(must(match).$match))).toBe(true)
  })

  it('when descendants are asked, then one aggregate answers the page and the total', async () => {
    const calls: Document[][] = []
    const tree = { aggregate: (pipeline: Document[]) => { calls.push(pipeline); return { toArray: async () => [{ page: [{ id: 3 }, { id: 8 }], total: [{ n: 12 }] }] } } }
    const page = await listDescendants({ tree } as unknown as Collections, 1, 'id', query({ offset: 10, limit: 2 }))
    expect(page).toEqual({ ids: [3, 8], total: 12 })
    expect(calls).toHaveLength(1)
    expect(must(calls[0]).at(-1)).toMatchObject({ $facet: { page: [{ $skip: 10 }, { $limit: 2 }, expect.anything()] } })
  })

  it('when the search text holds regex characters, then they match literally and case-insensitively', () => {
    const { $and: [, { $or: [{ 'o.title': regex }] }] } = filterMatch({ object_types: [], query: 'a.b (c)' })
    const re = new RegExp(regex.$regex, regex.$options)
    expect([re.test('x A.B (C) y'), re.test('axb (c)'), re.test('a.b c')]).toEqual([true, false, false])
    expect(filterMatch({ object_types: [], query: '' })).toEqual({})
  })

  it('when the search text has 3+ characters, then its trigrams narrow on the index before the exact $regex; shorter ones only regex', () => {
    const { $and: [trigrams, exact] } = filterMatch({ object_types: [], query: 'AbCa' })
    expect(trigrams).toEqual({ 'o.search_trigrams': { $all: ['abc', 'bca'] } })
    expect(exact.$or.map((c: Document) => Object.keys(c)[0])).toEqual(['o.title', 'o.description', 'o.body'])
    expect(filterMatch({ object_types: [], query: 'ab' }, '')).toEqual({ $or: [{ title: { $regex: 'ab', $options: 'i' } }, { description: { $regex: 'ab', $options: 'i' } }, { body: { $regex: 'ab', $options: 'i' } }] })
    const index = INDEXES.objects.find((i) => i.name === 'search_trigrams')
    expect(index?.key).toEqual({ search_trigrams: 1 })
    // the field never leaves the store: the record reads leave it on the server
    expect(RECORD_PROJECTION).toMatchObject({ search_trigrams: 0 })
  })
})

describe('pending uploads on MongoDB', () => {
  const KEY = 'cd'.repeat(32)

  it('when keys are asked about, then one indexed distinct per collection answers them, in the order asked', async () => {
    const calls: { coll: string, field: string, filter: Document }[] = []
    const coll = (name: string, values: string[]) => ({
      distinct: async (field: string, filter: Document) => { calls.push({ coll: name, field, filter }); return values },
    })
    const c = { objects: coll('objects', ['b']), uploads: coll('uploads', ['a']), trash: coll('trash', ['y']) } as unknown as Collections
    expect(await filesInUse(c, ['a', 'z', 'b', 'y'], 500)).toEqual(['a', 'b', 'y'])
    expect(calls).toEqual([
      { coll: 'objects', field: 'file.key', filter: { 'file.key': { $in: ['a', 'z', 'b', 'y'] } } },
      { coll: 'uploads', field: 'file.key', filter: { 'file.key': { $in: ['a', 'z', 'b', 'y'] }, expires_at: { $gt: 500 } } },
      // a trashed object's file waits for its restore or purge (decisions §16)
      { coll: 'trash', field: 'object.file.key', filter: { 'object.file.key': { $in: ['a', 'z', 'b', 'y'] } } },
    ])
    expect(served(INDEXES.objects, ['file.key'])).toBe(true)
    expect(served(INDEXES.uploads, ['file.key'], ['expires_at'])).toBe(true)
    expect(served(INDEXES.trash, ['object.file.key'])).toBe(true)
  })

  it('when an upload is read, then expiry is compared with now (the TTL monitor lags) and a row of another shape is none', async () => {
    const filters: Document[] = []
    const doc = { _id: 'h', user_id: 4, object_type: 'image', file: { key: KEY, name: 'a.png', mime_type: 'image/png', size: 3, width: 1, height: 1 }, expires_at: 900 }
    const uploads = { findOne: async (filter: Document) => { filters.push(filter); return doc } }
    expect(await getUpload({ uploads } as unknown as Collections, 'h', 500)).toEqual({ token_hash: 'h', user_id: 4, object_type: 'image', file: doc.file, expires_at: 900 })
    expect(filters).toEqual([{ _id: 'h', expires_at: { $gt: 500 } }])
    doc.file = { path: 'old' } as unknown as typeof doc.file
    expect(await getUpload({ uploads } as unknown as Collections, 'h', 500)).toBeNull()
  })

  it('when a write claims an upload, then the row is deleted in its session; when none was deleted, the write is refused', async () => {
    const calls: unknown[] = []
    let deletedCount = 1
    const session = { id: 'session' }
    const tx = { c: { uploads: { deleteOne: async (filter: Document, options: Document) => { calls.push({ filter, options }); return { deletedCount } } } }, session } as unknown as Tx
    await claimUpload(tx, undefined)
    expect(calls).toEqual([])
    await claimUpload(tx, { token_hash: 'h', now: 500 })
    expect(calls).toEqual([{ filter: { _id: 'h', expires_at: { $gt: 500 } }, options: { session } }])
    deletedCount = 0
    await expect(claimUpload(tx, { token_hash: 'h', now: 500 })).rejects.toBeInstanceOf(UploadClaimConflict)
  })
})

/** The first schema version of the MongoDB store: what the last release before versions made on open. */
const firstVersion = (db: Db) => must(OBJECTS_MONGO_MIGRATIONS[0]).up(db)

describe('schema version 1 of the MongoDB store', () => {
  it('when collections are missing, then they are created (a replica racing us is fine) and every index is declared', async () => {
    const created: string[] = []
    const indexed = new Map<string, Document[]>()
    const db = {
      listCollections: () => ({ toArray: async () => [{ name: 'objects' }] }),
      createCollection: async (name: string) => {
        if (name === 'tree') throw Object.assign(new Error('exists'), { code: 48 })
        created.push(name)
      },
      collection: (name: string) => ({
        createIndexes: async (specs: Document[]) => { indexed.set(name, specs) },
        find: (filter: Document) => { found.push(filter); return legacy.values() },
        bulkWrite: async (ops: Document[]) => { written.push(...ops) },
      }),
    } as unknown as Db
    const found: Document[] = []
    const written: Document[] = []
    const legacy = [{ _id: 7, title: 'Old News', description: null, body: 'ab' }]
    await firstVersion(db)
    // objects from before the search trigrams get theirs, once
    expect(found).toEqual([{ search_trigrams: { $exists: false } }])
    expect(written).toEqual([{ updateOne: { filter: { _id: 7 }, update: { $set: { search_trigrams: ['old', 'ld ', 'd n', ' ne', 'new', 'ews'] } } } }])
    expect(created).toEqual(['relations', 'tags', 'categories', 'counters', 'uploads', 'changes', 'meta', 'webhooks', 'webhook_deliveries', 'leases', 'idempotency', 'trash', 'revisions', 'locks'])
    expect(indexed.get('trash')).toContainEqual(expect.objectContaining({ key: { nickname: 1 }, unique: true }))
    expect(indexed.get('idempotency')).toContainEqual(expect.objectContaining({ key: { user_id: 1, key: 1 }, unique: true }))
    expect(indexed.get('changes')).toContainEqual(expect.objectContaining({ key: { at: 1 } }))
    expect(indexed.get('objects')).toContainEqual(expect.objectContaining({ key: { nickname: 1 }, unique: true }))
    expect(indexed.get('objects')).toContainEqual(expect.objectContaining({ key: { 'file.key': 1 } }))
    expect(indexed.get('uploads')).toContainEqual(expect.objectContaining({ key: { expires: 1 }, expireAfterSeconds: 0 }))
    expect(indexed.get('relations')).toContainEqual(expect.objectContaining({ key: { object_id: 1, name: 1, related_id: 1 }, unique: true }))
    expect(must(indexed.get('tree')).map((i) => i.key)).toEqual([{ parent_id: 1, priority: 1, object_id: 1 }, { object_id: 1, seq: 1 }, { ancestors: 1 }])
  })

  it('when creating a collection fails for another reason, then opening fails', async () => {
    const db = {
      listCollections: () => ({ toArray: async () => [] }),
      createCollection: async () => { throw Object.assign(new Error('not authorized'), { code: 13 }) },
    } as unknown as Db
    await expect(firstVersion(db)).rejects.toThrow('not authorized')
  })
})

class FakeStream extends EventEmitter {
  closed = false
  async close (): Promise<void> { this.closed = true }
}

/** Just enough of MongoDB's query language to run the watcher's $match on sample events. */
function matches (doc: Document, query: Document): boolean {
  return Object.entries(query).every(([key, condition]) => {
    if (key === '$or') return (condition as Document[]).some((q) => matches(doc, q))
    const value = key.split('.').reduce<unknown>((v, part) => (v as Document | undefined)?.[part], doc)
    return (condition as { $in: unknown[] }).$in.includes(value)
  })
}

describe('the change watcher\'s pipeline', () => {
  const [match, project] = watchPipeline()
  const event = (operationType: string, ns?: Document, to?: Document) => ({ operationType, ...(ns ? { ns } : {}), ...(to ? { to } : {}) })
  it.each([
    ['an insert into objects', event('insert', { db: 'content', coll: 'objects' }), true],
    ['an update of a tree edge', event('update', { db: 'content', coll: 'tree' }), true],
    ['a dropped relations collection', event('drop', { db: 'content', coll: 'relations' }), true],
    ['a collection renamed into meta', event('rename', { db: 'content', coll: 'old' }, { db: 'content', coll: 'meta' }), true],
    ['a dropped database', event('dropDatabase', { db: 'content' }), true],
    ['the stream invalidated', event('invalidate'), true],
    ['a pending upload', event('insert', { db: 'content', coll: 'uploads' }), false],
    ['a block of ids reserved', event('update', { db: 'content', coll: 'counters' }), false],
    ['a lock document written', event('update', { db: 'content', coll: 'locks' }), false],
    ['an expired upload removed', event('delete', { db: 'content', coll: 'uploads' }), false],
    ['a GridFS file of the poster service', event('insert', { db: 'content', coll: 'media_originals.files' }), false],
    ['a GridFS chunk of the poster service', event('insert', { db: 'content', coll: 'media_thumbnails.chunks' }), false],
  ])('when the event is %s, then it is followed: %s', (_label, e, followed) => {
    expect(matches(e, must(match).$match)).toBe(followed)
  })

  it('when events pass the match, then only what the watcher reads is kept', () => {
    expect(project).toEqual({ $project: { operationType: 1, lsid: 1, txnNumber: 1 } })
  })

  it('when the watcher starts, then it watches with that pipeline', () => {
    const pipelines: Document[][] = []
    const db = { watch: (pipeline: Document[]) => { pipelines.push(pipeline); return new FakeStream() } } as unknown as Db
    new ChangeWatcher(db, { isOwn: () => false, onChange: () => {}, onError: () => {} }).start()
    expect(pipelines).toEqual([watchPipeline()])
  })
})

describe('ChangeWatcher', () => {
  afterEach(() => { vi.useRealTimers() })
  const lsid = (hex: string) => ({ id: new Binary(Buffer.from(hex, 'hex'), 4) })

  function watch () {
    const streams: FakeStream[] = []
    const db = { watch: () => { const s = new FakeStream(); streams.push(s); return s } } as unknown as Db
    const seen = { changes: 0, errors: 0 }
    const watcher = new ChangeWatcher(db, {
      isOwn: (key) => key === 'aa', onChange: () => { seen.changes++ }, onError: () => { seen.errors++ }, retryMs: { first: 100, max: 400 },
    })
    watcher.start()
    return { watcher, streams, seen }
  }

  it('when events arrive, then own transactions are ignored and each other transaction counts once', async () => {
    const { watcher, streams, seen } = watch()
    const s = must(streams[0])
    s.emit('change', { operationType: 'insert', lsid: lsid('aa'), txnNumber: 1 })
    expect(seen.changes).toBe(0)
    for (const op of ['update', 'insert', 'insert']) s.emit('change', { operationType: op, lsid: lsid('bb'), txnNumber: 7 })
    expect(seen.changes).toBe(1)
    s.emit('change', { operationType: 'insert', lsid: lsid('bb'), txnNumber: 8 })
    s.emit('change', { operationType: 'update' })
    s.emit('change', { operationType: 'update' })
    expect(seen.changes).toBe(4)
    await watcher.close()
    expect(s.closed).toBe(true)
  })

  it('when the stream fails, then the error is reported and the stream reopens with backoff and one catch-up bump', async () => {
    vi.useFakeTimers()
    const { watcher, streams, seen } = watch()
    must(streams[0]).emit('error', new Error('boom'))
    expect([seen.errors, must(streams[0]).closed, streams.length]).toEqual([1, true, 1])
    await vi.advanceTimersByTimeAsync(100)
    expect([streams.length, seen.changes]).toEqual([2, 1])
    must(streams[1]).emit('error', new Error('again'))
    await vi.advanceTimersByTimeAsync(199)
    expect(streams.length).toBe(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(streams.length).toBe(3)
    must(streams[2]).emit('resumeTokenChanged', {})
    must(streams[2]).emit('change', { operationType: 'invalidate' })
    expect(seen.changes).toBe(3)
    await vi.advanceTimersByTimeAsync(100) // healthy again: backoff restarted
    expect(streams.length).toBe(4)
    await watcher.close()
    must(streams[3]).emit('error', new Error('after close'))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(streams.length).toBe(4)
  })
})

describe('config', () => {
  it('when STORE=mongodb has no MONGODB_URL, then the configuration is refused naming it', () => {
    expect(() => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, STORE: 'mongodb' })).toThrow(/MONGODB_URL: required when STORE=mongodb/)
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, STORE: 'mongodb', MONGODB_URL: 'mongodb://db/?replicaSet=rs0' }).MONGODB_DB).toBe('content')
  })
})
