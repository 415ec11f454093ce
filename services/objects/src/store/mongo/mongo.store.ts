import { listsPort } from './select.mongo.js'
import { randomUUID } from 'node:crypto'
import { ReadConcern, type Db, type MongoClient } from 'mongodb'
import { present } from '@content/platform'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsPort, ObjectsStore, RelationsPort, TreePort } from '../../core/ports.js'
import type { SavedChildRow, SavedRelationRow } from '../../core/types.js'
import type { StoreOptions } from '../store-options.js'
import { UniqueConflict } from '../../core/conflicts.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { childRemoved, childrenSaved, permissionsSet, relationRemoved, relationReplaced, relationsSaved } from '../../core/write-events.js'
import { ChangeWatcher, sessionKey } from './change-stream.mongo.js'
import { appendChanges, changeBounds, changesAfter, pendingChange, pruneChanges, type PendingChange } from './outbox.mongo.js'
import { applyPlan } from './fixtures.mongo.js'
import { idempotencyPort, recordOutcome } from './idempotency.mongo.js'
import * as objects from './objects.mongo.js'
import * as relations from './relations.mongo.js'
import { DUPLICATE_KEY, DURABLE, TRANSACTION, ensureSchema, type Collections, type Tx } from './schema.mongo.js'
import * as tree from './tree.mongo.js'
import * as uploads from './uploads.mongo.js'
import { dropRevisions, recordRevision, revisionsPort } from './revisions.mongo.js'
import { toRecord } from './rows.mongo.js'
import { trashPort } from './trash.mongo.js'
import { announceWindows } from './schedule.mongo.js'
import type { RevisionsKeep } from '../../core/revisions.js'
import { webhooksPort } from './webhooks.mongo.js'
import { deleteObject, insertObject, updateObject } from './writes.mongo.js'

export interface MongoStoreOptions extends StoreOptions {
  /** change-stream failures (the stream is reopened) */
  onWatchError?: (err: unknown) => void
}

/** Server sessions remembered as this process's; the driver pools and reuses them, so few are ever live. */
const OWN_SESSIONS_KEPT = 1_000

/**
 * The objects store on MongoDB. Takes ownership of `client` (closed by close(), or when opening
 * fails). Needs a replica set (a single node will do): every write is a transaction, and other
 * replicas' writes arrive through a change stream. Reads use read concern "majority".
 */
export async function openMongoStore (client: MongoClient, dbName: string, options: MongoStoreOptions): Promise<ObjectsStore> {
  try {
    const db = client.db(dbName, { readConcern: new ReadConcern('majority'), writeConcern: DURABLE })
    const c = await ensureSchema(db)
    const ownSessions = new Set<string>()
    const clock = options.now ?? Date.now
    const write: Write = (fn) => inTransaction(client, c, ownSessions, clock, fn)
    await bootstrap(write, options.publicationNickname, clock())
    const storeId = await storeIdentity(c)
    return buildStore(client, db, c, ownSessions, write, storeId, options)
  } catch (err) {
    await client.close().catch(() => { /* the open error is the one to report */ })
    throw replicaSetHint(err)
  }
}

/** A transaction's result and the number of its last change event (0: it recorded none). */
type Write = <T>(fn: (tx: Tx) => Promise<T>) => Promise<{ result: T, last: number }>

/**
 * Runs `fn` in one transaction (retried by the driver on transient errors, so `fn` must start from
 * nothing each time). The session is remembered first: the change stream recognises the commit as ours.
 */
async function inTransaction<T> (client: MongoClient, c: Collections, own: Set<string>, clock: () => number, fn: (tx: Tx) => Promise<T>): Promise<{ result: T, last: number }> {
  const session = client.startSession()
  const key = sessionKey(session.id)
  own.delete(key)
  own.add(key)
  if (own.size > OWN_SESSIONS_KEPT) for (const oldest of own.values()) { own.delete(oldest); break }
  try {
    return await session.withTransaction(async () => {
      // each attempt starts from nothing: its events are recorded afresh
      const pending: PendingChange[] = []
      const tx: Tx = { c, session, record: async (drafts) => { for (const draft of drafts) pending.push(await pendingChange(tx, draft)) } }
      const result = await fn(tx)
      return { result, last: await appendChanges(tx, pending, clock()) }
    }, TRANSACTION)
  } finally {
    await session.endSession()
  }
}

/** An empty store gets the publication: object 1, an area, status on. Replicas starting together agree. */
async function bootstrap (write: Write, nickname: string, now: number): Promise<void> {
  await write(async (tx) => {
    // the publication is there before anyone follows the store: no event
    tx = { ...tx, record: async () => {} }
    if (await tx.c.objects.findOne({ _id: PUBLICATION_ID }, { projection: { _id: 1 }, session: tx.session })) return
    if (await tx.c.objects.findOne({}, { projection: { _id: 1 }, session: tx.session })) throw new Error('the store has objects but no publication (object 1)')
    const id = await insertObject(tx, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now)
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })
}

function replicaSetHint (err: unknown): unknown {
  const message = err instanceof Error ? err.message : String(err)
  if (!/replica set|Transaction numbers/i.test(message)) return err
  return new Error(`STORE=mongodb needs a replica set (transactions and change streams); the server said: ${message}`, { cause: err })
}

/** The store's identity, made by the first replica to start and kept with the data. */
async function storeIdentity (c: Collections): Promise<string> {
  const doc = await c.meta.findOneAndUpdate({ _id: 'store_id' }, { $setOnInsert: { value: randomUUID() } }, { upsert: true, returnDocument: 'after' })
  return present(doc, 'the store_id document').value
}

type Commit = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>

function buildStore (client: MongoClient, db: Db, c: Collections, ownSessions: Set<string>, write: Write, storeId: string, options: MongoStoreOptions): ObjectsStore {
  const listeners = new Set<() => void>()
  const notify = () => { for (const l of listeners) l() }
  let committed = 0
  /** A write, then the listeners once it has committed. */
  const commit: Commit = async (fn) => {
    const { result, last } = await write(fn).catch((err: unknown) => {
      throw (err as { code?: unknown }).code === DUPLICATE_KEY ? new UniqueConflict() : err
    })
    if (last > 0) {
      committed = Math.max(committed, last)
      notify()
    }
    return result
  }
  const watcher = new ChangeWatcher(db, {
    isOwn: (key) => ownSessions.has(key),
    onChange: notify,
    onError: options.onWatchError ?? (() => { /* reopened with backoff */ }),
  })
  watcher.start()
  return {
    kind: 'mongodb',
    storeId,
    objects: objectsPort(c, commit, options.revisionsKeep ?? null),
    tree: treePort(c, commit),
    relations: relationsPort(c, commit),
    lists: listsPort(c),
    vocabulary: { existingCategories: (names) => objects.existingCategories(c, names) },
    // pending uploads change nothing a read shows: no commit(), so listeners are not told
    uploads: {
      add: (upload, now) => uploads.addUpload(c, upload, now),
      get: (hash, now) => uploads.getUpload(c, hash, now),
      filesInUse: (keys, now) => uploads.filesInUse(c, keys, now),
    },
    changes: {
      after: (seq, limit) => changesAfter(c, seq, limit),
      bounds: () => changeBounds(c),
      prune: (before, keepAfter) => pruneChanges(c, before, keepAfter),
    },
    webhooks: webhooksPort(c),
    idempotency: idempotencyPort(c),
    trash: trashPort(c, commit),
    revisions: revisionsPort(c),
    schedule: { announce: (now, statuses) => commit((tx) => announceWindows(tx, now, statuses)) },
    committedSeq: () => committed,
    // a commit is acknowledged with w: 'majority', j: true: durable when it returns
    durable: () => Promise.resolve(),
    applyFixtures: (plan, now) => commit((tx) => applyPlan(tx, plan, now)),
    onChange (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    async close () {
      listeners.clear()
      await watcher.close()
      await client.close()
    },
  }
}

/** The object's record as the transaction sees it (null: none). */
async function recordIn (tx: Tx, id: number) {
  const doc = await tx.c.objects.findOne({ _id: id }, { session: tx.session })
  return doc === null ? null : toRecord(doc)
}

function objectsPort (c: Collections, commit: Commit, keep: RevisionsKeep): ObjectsPort {
  return {
    get: (ref) => objects.getObject(c, ref),
    listByIds: (ids) => objects.listObjectsByIds(c, ids),
    details: (ids) => objects.loadDetails(c, ids),
    typesOf: (ids) => objects.typesOf(c, ids),
    nicknamesTaken: (names) => objects.nicknamesTaken(c, names),
    windowDates: (now) => objects.windowDates(c, now),
    setPermissions: (id, r, w) => commit(async (tx) => {
      const changed = await objects.setPermissions(tx, id, r, w)
      await tx.record(permissionsSet(id, changed))
      return changed
    }),
    create: (input, now) => commit(async (tx) => {
      const id = await insertObject(tx, input, now)
      if (keep !== 0) await recordRevision(tx, id, null, await recordIn(tx, id), now, input.user_id, keep)
      await uploads.claimUpload(tx, input.claim)
      await recordOutcome(tx, input.idempotency, { kind: 'object', id, created: true })
      return id
    }),
    // an object that is gone is not updated, and its claims are left unused
    update: (id, patch, now) => commit(async (tx) => {
      // the revision compares the own fields before and after (decisions §16)
      const before = keep === 0 ? null : await recordIn(tx, id)
      const updated = await updateObject(tx, id, patch, now)
      if (updated) {
        if (keep !== 0) await recordRevision(tx, id, before, await recordIn(tx, id), now, patch.user_id, keep)
        await uploads.claimUpload(tx, patch.claim)
        await recordOutcome(tx, patch.idempotency, { kind: 'object', id, created: false })
      }
      return updated
    }),
    remove: (id) => commit(async (tx) => {
      await dropRevisions(tx, id)
      return await deleteObject(tx, id) ? 'removed' : 'absent'
    }),
  }
}

function treePort (c: Collections, commit: Commit): TreePort {
  return {
    children: (parentId, scope, q) => tree.listChildren(c, parentId, scope, q),
    descendants: (nodeId, order, q) => tree.listDescendants(c, nodeId, order, q),
    parents: (id) => tree.parentsOf(c, id),
    ancestors: (id) => tree.ancestorsOf(c, id),
    childCounts: (ids, vis) => tree.childCounts(c, ids, vis),
    position: (p, ch) => tree.positionOf(c, p, ch),
    hasChildren: (p) => tree.hasChildren(c, p),
    isAncestor: (a, d) => tree.isAncestor(c, a, d),
    addChildren: (p, items, idempotency) => commit(async (tx) => {
      const saved: SavedChildRow[] = []
      for (const i of items) saved.push(await tree.placeChild(tx, p, i.child_id, i.priority))
      await tx.record(childrenSaved(p, saved))
      await recordOutcome(tx, idempotency, { kind: 'children', items: saved })
      return saved
    }),
    setPriority: (p, ch, priority) => commit(async (tx) => {
      if (await tree.positionOf(c, p, ch, tx) === null) return false
      await tx.record(childrenSaved(p, [await tree.placeChild(tx, p, ch, priority)]))
      return true
    }),
    removeChild: (p, ch) => commit(async (tx) => {
      const removed = await tree.unplaceChild(tx, p, ch)
      await tx.record(childRemoved(p, ch, removed))
      return removed ? 'removed' : 'absent'
    }),
  }
}

function relationsPort (c: Collections, commit: Commit): RelationsPort {
  return {
    list: (id, name, q) => relations.listRelated(c, id, name, q),
    get: (id, name, rel) => relations.getRelation(c, id, name, rel),
    firstOf: (ids, names, vis, limit) => relations.firstRelated(c, ids, names, vis, limit),
    counts: (ids, vis) => relations.relationCounts(c, ids, vis),
    neighbours: (id) => relations.neighbours(c, id),
    save: (id, name, inverse, items, idempotency) => commit(async (tx) => {
      const saved: SavedRelationRow[] = []
      for (const i of items) saved.push(await relations.saveRelation(tx, id, name, inverse, i))
      await tx.record(relationsSaved(id, name, saved))
      await recordOutcome(tx, idempotency, { kind: 'relations', items: saved })
      return saved
    }),
    replace: (id, name, inverse, item) => commit(async (tx) => {
      const replaced = await relations.replaceRelation(tx, id, name, inverse, item)
      await tx.record(relationReplaced(id, name, item.related_id, replaced))
      return replaced
    }),
    remove: (id, name, inverse, rel) => commit(async (tx) => {
      const removed = await relations.removeRelation(tx, id, name, inverse, rel)
      await tx.record(relationRemoved(id, name, rel, removed))
      return removed ? 'removed' : 'absent'
    }),
  }
}
