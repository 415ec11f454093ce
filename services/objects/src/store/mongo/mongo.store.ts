import { randomUUID } from 'node:crypto'
import { ReadConcern, type Db, type MongoClient } from 'mongodb'
import { present } from '@content/platform'
import { composeStore } from '../../core/composed-store.js'
import { UniqueConflict } from '../../core/conflicts.js'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsStore, StoreAdapter } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { runSteps, type Steps } from '../../core/unit-of-work.js'
import { RowByRowImport } from '../../core/writes/fixtures.rows.js'
import type { StoreOptions } from '../store-options.js'
import { ChangeWatcher, sessionKey } from './change-stream.mongo.js'
import { idempotencyPort } from './idempotency.mongo.js'
import { objectsPort, vocabularyPort } from './objects.mongo.js'
import { appendChanges, changesPort } from './outbox.mongo.js'
import { relationsPort } from './relations.mongo.js'
import { revisionsPort } from './revisions.mongo.js'
import { IdBlocks } from './ids.mongo.js'
import { DURABLE, DUPLICATE_KEY, TRANSACTION, ensureSchema, type Collections, type Tx } from './schema.mongo.js'
import { listsPort } from './select.mongo.js'
import { trashPort } from './trash.mongo.js'
import { treePort } from './tree.mongo.js'
import { uploadsPort } from './uploads.mongo.js'
import { webhooksPort } from './webhooks.mongo.js'
import { MongoSteps } from './write-steps.mongo.js'
import { insertObject } from './writes.mongo.js'

export interface MongoStoreOptions extends StoreOptions {
  /** change-stream failures (the stream is reopened) */
  onWatchError?: (err: unknown) => void
}

/** Server sessions remembered as this process's; the driver pools and reuses them, so few are ever live. */
const OWN_SESSIONS_KEPT = 1_000

/** Objects a fixtures import writes per transaction: far inside MongoDB's 60 s transaction limit. */
const IMPORT_LIMIT = 1_000

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
    const ids = new IdBlocks(c.counters)
    const transaction: Transaction = (work) => inTransaction(client, { c, ids, own: ownSessions, clock }, work)
    await bootstrap(transaction, ids, options.publicationNickname, clock())
    const storeId = await storeIdentity(c)
    return composeStore(buildAdapter(client, db, c, ownSessions, transaction, storeId, options), { revisionsKeep: options.revisionsKeep ?? null })
  } catch (err) {
    await client.close().catch(() => { /* the open error is the one to report */ })
    throw replicaSetHint(err)
  }
}

/** Runs composed steps over one transaction's steps; answers their result and the number of its last change event (0: none). */
type Transaction = <T>(work: (tx: Tx, steps: MongoSteps) => Steps<T>) => Promise<{ result: T, last: number }>

/** What every transaction of the store shares: its collections, its id blocks, its sessions, its clock. */
interface Shared { c: Collections, ids: IdBlocks, own: Set<string>, clock: () => number }

/**
 * Runs `work` in one transaction (retried by the driver on transient errors, so each attempt starts
 * from nothing: new steps, no events). The session is remembered first: the change stream recognises
 * the commit as ours.
 */
async function inTransaction<T> (client: MongoClient, { c, ids, own, clock }: Shared, work: (tx: Tx, steps: MongoSteps) => Steps<T>): Promise<{ result: T, last: number }> {
  const session = client.startSession()
  const key = sessionKey(session.id)
  own.delete(key)
  own.add(key)
  if (own.size > OWN_SESSIONS_KEPT) for (const oldest of own.values()) { own.delete(oldest); break }
  try {
    return await session.withTransaction(async () => {
      const tx: Tx = { c, session, ids, created: new Set() }
      const steps = new MongoSteps(tx)
      const result = await runSteps(work(tx, steps))
      return { result, last: await appendChanges(tx, steps.pending, clock()) }
    }, TRANSACTION)
  } finally {
    await session.endSession()
  }
}

/**
 * An empty store gets the publication: object 1, an area, status on. Replicas starting together agree:
 * their inserts of object 1 conflict, and the one retried finds it there.
 */
async function bootstrap (transaction: Transaction, ids: IdBlocks, nickname: string, now: number): Promise<void> {
  // ids handed out from blocks start after it
  await ids.atLeast('objects', PUBLICATION_ID)
  // the publication is there before anyone follows the store: no event
  await transaction(function * (tx, steps) {
    if (yield steps.exists(PUBLICATION_ID)) return
    if (yield tx.c.objects.findOne({}, { projection: { _id: 1 }, session: tx.session })) throw new Error('the store has objects but no publication (object 1)')
    yield insertObject(tx, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now, PUBLICATION_ID)
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

function buildAdapter (client: MongoClient, db: Db, c: Collections, ownSessions: Set<string>, transaction: Transaction, storeId: string, options: MongoStoreOptions): StoreAdapter {
  const listeners = new Set<() => void>()
  const notify = () => { for (const l of listeners) l() }
  let committed = 0
  /** A transaction, then the listeners once it has committed. */
  const commit = async <T>(work: (tx: Tx, steps: MongoSteps) => Steps<T>): Promise<T> => {
    const { result, last } = await transaction(work).catch((err: unknown) => {
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
    objects: objectsPort(c),
    tree: treePort(c),
    relations: relationsPort(c),
    lists: listsPort(c),
    vocabulary: vocabularyPort(c),
    uploads: uploadsPort(c),
    changes: changesPort(c),
    webhooks: webhooksPort(c),
    idempotency: idempotencyPort(c),
    trash: trashPort(c),
    revisions: revisionsPort(c),
    write: (work) => commit((_tx, steps) => work(steps)),
    importInBulk: (work) => commit((_tx, steps) => work(new RowByRowImport(steps))),
    importLimit: IMPORT_LIMIT,
    committedSeq: () => committed,
    // a commit is acknowledged with w: 'majority', j: true: durable when it returns
    durable: () => Promise.resolve(),
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
