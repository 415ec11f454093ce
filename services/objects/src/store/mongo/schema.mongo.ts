import type { Logger } from '@content/platform'
import { migrateMongo, type MigrateMode, type Migration, type MigrationReport } from '@content/platform/migrations'
import { ReadConcern, WriteConcern, type AnyBulkWriteOperation, type ClientSession, type Collection, type Db, type IndexDescription, type TransactionOptions } from 'mongodb'
import type { ChangeEvent } from '../../core/change-events.js'
import type { WriteOutcome } from '../../core/idempotency.js'
import type { GmapsLookats } from '../../core/types.js'
import { SEARCHED_FIELDS, searchedTexts, trigramsOf } from '../../core/text-search.js'
import type { MediaFileRecord, ObjectDetails, ObjectRecord } from '../../core/types.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { DeliveryRecord, WebhookRecord } from '../../core/webhooks.js'
import type { IdBlocks } from './ids.mongo.js'

/**
 * The MongoDB layout of the objects store. Numbers are stored as numbers (ids, priorities and
 * timestamps in epoch milliseconds) so documents map to the port's records one to one.
 */

/** One object with everything that belongs to it alone embedded; tags and categories by name. */
export interface ObjectDoc extends Omit<ObjectRecord, 'id' | 'object_type' | 'status'> {
  _id: number
  object_type: string
  status: string
  /** trigramsOf the searched fields: what filter[query] looks up (never shown; absent on data from before it) */
  search_trigrams?: string[]
  // Pairs rather than sub-documents keyed by user text: language codes and property names may hold '.' or '$'.
  translations: { lang: string, field: string, value: string }[]
  custom_properties: { name: string, value: string }[]
  geo_tags: GeoTagDoc[]
  date_items: { start_date: number | null, end_date: number | null, days: number[] }[]
  tags: string[]
  categories: string[]
}

export interface GeoTagDoc {
  id: number
  latitude: number
  longitude: number
  address: string
  title: string
  gmaps_lookats: GmapsLookats | null
}

/** One parent → child edge. `ancestors` = the parent and every ancestor of the parent (all paths). */
export interface TreeDoc {
  /** `<parent_id>/<object_id>`: an edge exists at most once */
  _id: string
  parent_id: number
  object_id: number
  priority: number
  /** placement order among the object's edges: its first parent is its edge with the lowest seq */
  seq: number
  ancestors: number[]
}

/** One direction of a relation; the inverse direction is its own document with the same params. */
export interface RelationDoc {
  object_id: number
  name: string
  related_id: number
  priority: number | null
  params: string | null
}

/** A pending upload (decisions §12), keyed by the SHA-256 hex of its token. */
export interface UploadDoc {
  _id: string
  user_id: number
  object_type: string
  file: MediaFileRecord
  /** ms since the epoch, exclusive: what every read compares with its `now` */
  expires_at: number
  /** the same instant as a Date, for the TTL index that removes rows nobody reads again */
  expires: Date
}

export interface TagDoc { _id: string, label: string }
export interface CategoryDoc { _id: string, id: number, label: string, area_id: number | null }
/** A sequence's last number given (the outbox's; ids.mongo.ts reserves the others' blocks). */
export interface CounterDoc { _id: string, seq: number }
/** A lock document of link-locks.mongo.ts: written by the writes that must conflict, never read. */
export interface LockDoc { _id: string, v: number }
/** An outbox event (decisions §13), keyed by its sequence number. */
export type ChangeDoc = Omit<ChangeEvent, 'seq'> & { _id: number }
/** The store's identity, kept with the data. */
export interface MetaDoc { _id: string, value: string }
export type WebhookDoc = Omit<WebhookRecord, 'id'> & { _id: string }
export type DeliveryDoc = Omit<DeliveryRecord, 'id'> & { _id: string }
export interface LeaseDoc { _id: string, holder: string, expires_at: number }
/** A guarded write's idempotency key (unique per user), what it did, and the answer it got. */
export interface IdempotencyDoc {
  user_id: number
  key: string
  /** the gateway's fingerprint of the request */
  request_hash: string
  outcome: WriteOutcome
  /** the answer given (JSON), null until stored after the commit */
  response: string | null
  created_at: number
}

/** A trashed object (decisions §16): its entry, and what it takes to put it back. */
export interface TrashDoc {
  _id: number
  object_type: string
  nickname: string
  read_groups: string[]
  write_groups: string[]
  deleted: number
  user_id: number
  object: ObjectDoc
  details: ObjectDetails
  parents: { parent_id: number, priority: number }[]
  relations: RelationDoc[]
}

/** One revision of an object's own fields (decisions §16). */
export interface RevisionDoc extends RevisionRecord {
  _id: string
  object_id: number
}

export interface Collections {
  objects: Collection<ObjectDoc>
  tree: Collection<TreeDoc>
  relations: Collection<RelationDoc>
  tags: Collection<TagDoc>
  categories: Collection<CategoryDoc>
  counters: Collection<CounterDoc>
  uploads: Collection<UploadDoc>
  changes: Collection<ChangeDoc>
  meta: Collection<MetaDoc>
  webhooks: Collection<WebhookDoc>
  deliveries: Collection<DeliveryDoc>
  leases: Collection<LeaseDoc>
  idempotency: Collection<IdempotencyDoc>
  trash: Collection<TrashDoc>
  revisions: Collection<RevisionDoc>
  locks: Collection<LockDoc>
}

/** A write in progress: every operation inside it passes the session of its transaction, one at a time. */
export interface Tx {
  c: Collections
  session: ClientSession
  /** this process's blocks of ids (ids.mongo.ts) */
  ids: IdBlocks
  /** the objects this transaction inserted: nothing else can see them yet (link-locks.mongo.ts) */
  created: Set<number>
}

export const edgeId = (parentId: number, objectId: number): string => `${parentId}/${objectId}`

/** The searched fields of an object's document (what its search trigrams are made of). */
export const SEARCHED_PROJECTION = Object.fromEntries(SEARCHED_FIELDS.map((f) => [f, 1]))

/** A 2xx means the write is on a majority of the replica set and in its journal. */
export const DURABLE = new WriteConcern('majority', undefined, true)

/**
 * Every write runs in a transaction (a replica set is required; a single-node one will do). Snapshot
 * reads inside it make read-then-write steps (max priority + 1, nickname candidates) consistent;
 * conflicting transactions abort and withTransaction retries them. A commit waits 10 s at most for a
 * majority to acknowledge it.
 */
export const TRANSACTION: TransactionOptions = {
  readConcern: new ReadConcern('snapshot'),
  writeConcern: DURABLE,
  maxCommitTimeMS: 10_000,
}

/** Indexes per collection, created at start (createIndexes is idempotent for identical specs). */
export const INDEXES: Record<'objects' | 'tree' | 'relations' | 'uploads' | 'changes' | 'deliveries' | 'idempotency' | 'trash' | 'revisions', IndexDescription[]> = {
  objects: [
    // GetObject by nickname; the unique index is what makes a taken nickname fail the write (code 11000).
    { key: { nickname: 1 }, name: 'nickname_unique', unique: true },
    // filter[object_type] and the object-type endpoints.
    { key: { object_type: 1 }, name: 'object_type' },
    // windowDates(): the next publication-window boundary, asked after every write (range + sort + limit 1).
    { key: { start_date: 1 }, name: 'start_date' },
    { key: { end_date: 1 }, name: 'end_date' },
    // filesInUse(): which content keys an object's file still uses.
    { key: { 'file.key': 1 }, name: 'file_key' },
    // filter[query] of 3+ characters: { search_trigrams: { $all } } narrows before the exact $regex (multikey).
    { key: { search_trigrams: 1 }, name: 'search_trigrams' },
  ],
  tree: [
    // children lists in their order (priority, then id) and max(priority) under a parent.
    { key: { parent_id: 1, priority: 1, object_id: 1 }, name: 'children' },
    // parents in placement order (first parent first) and an object's edges on delete.
    { key: { object_id: 1, seq: 1 }, name: 'parents' },
    // descendants of a node in one query (multikey), isAncestor, and the subtree to re-root on a move.
    { key: { ancestors: 1 }, name: 'ancestors' },
  ],
  relations: [
    // one row per (object, name, related): saving twice updates instead of duplicating.
    { key: { object_id: 1, name: 1, related_id: 1 }, name: 'pair_unique', unique: true },
    // relation lists in their order (priority, then related id).
    { key: { object_id: 1, name: 1, priority: 1, related_id: 1 }, name: 'list_order' },
    // deleting an object removes the rows that point at it.
    { key: { related_id: 1 }, name: 'related' },
  ],
  uploads: [
    // filesInUse(): which content keys an unexpired upload holds.
    { key: { 'file.key': 1, expires_at: 1 }, name: 'file_key' },
    // the TTL monitor removes expired rows within about a minute; add() drops them at once (same index).
    { key: { expires: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 },
  ],
  changes: [
    // pruning by commit time
    { key: { at: 1 }, name: 'at' },
  ],
  deliveries: [
    // one delivery per subscription and event; the oldest pending one of a subscription; its newest
    { key: { webhook_id: 1, seq: 1 }, name: 'webhook_seq_unique', unique: true },
    { key: { webhook_id: 1, status: 1, seq: 1 }, name: 'pending' },
  ],
  idempotency: [
    // one live key per user: a second write recording it fails (code 11000) and rolls back
    { key: { user_id: 1, key: 1 }, name: 'user_key_unique', unique: true },
    // pruning by age
    { key: { created_at: 1 }, name: 'created_at' },
  ],
  trash: [
    // a trashed object keeps its nickname (decisions §16): a restore can always put it back
    { key: { nickname: 1 }, name: 'nickname_unique', unique: true },
    // filesInUse(): a trashed object's file stays until the purge
    { key: { 'object.file.key': 1 }, name: 'file_key' },
    // the list, newest first, and the retention's oldest first
    { key: { deleted: 1 }, name: 'deleted' },
  ],
  revisions: [
    // an object's revisions, newest first, and the next number
    { key: { object_id: 1, revision: -1 }, name: 'object_revision' },
  ],
}

const COLLECTIONS = ['objects', 'tree', 'relations', 'tags', 'categories', 'counters', 'uploads', 'changes', 'meta', 'webhooks', 'webhook_deliveries', 'leases', 'idempotency', 'trash', 'revisions', 'locks'] as const

/**
 * The collections whose writes change what reads show: the change watcher follows only these. Pending
 * uploads show nowhere, and other services keep their own collections in the same database.
 */
export const WATCHED_COLLECTIONS: readonly string[] = COLLECTIONS.filter((name) => !['uploads', 'webhooks', 'webhook_deliveries', 'leases', 'idempotency', 'revisions', 'locks', 'counters'].includes(name))

const NAMESPACE_EXISTS = 48

/**
 * The objects store's MongoDB collections and indexes, version by version (the `objects` document of
 * `schema_versions`). Version 1 is what the last release before versions made on open, each step safe to
 * run again: the collections (transactions may not create them on older servers), the indexes
 * (createIndexes is a no-op for identical specs) and the search trigrams of objects written before them.
 */
export const OBJECTS_MONGO_MIGRATIONS: Migration<Db>[] = [
  {
    version: 1,
    name: 'collections, indexes, search trigrams',
    async up (db) {
      const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name))
      for (const name of COLLECTIONS) {
        if (existing.has(name)) continue
        try {
          await db.createCollection(name)
        } catch (err) {
          if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err
        }
      }
      const c = collectionsOf(db)
      await c.objects.createIndexes(INDEXES.objects)
      await c.tree.createIndexes(INDEXES.tree)
      await c.relations.createIndexes(INDEXES.relations)
      await c.uploads.createIndexes(INDEXES.uploads)
      await c.changes.createIndexes(INDEXES.changes)
      await c.deliveries.createIndexes(INDEXES.deliveries)
      await c.idempotency.createIndexes(INDEXES.idempotency)
      await c.trash.createIndexes(INDEXES.trash)
      await c.revisions.createIndexes(INDEXES.revisions)
      await backfillTrigrams(c)
    },
  },
]

/** A database with the objects collection but no recorded objects version: an earlier release wrote it. */
const earlierRelease = async (db: Db): Promise<boolean> =>
  (await db.listCollections({ name: 'objects' }, { nameOnly: true }).toArray()).length > 0

/** Brings the database to this release's collections and indexes (`migrate`), or refuses it when they are not there (`check`). */
export function migrateObjectsMongo (db: Db, mode: MigrateMode, log?: Logger): Promise<MigrationReport> {
  return migrateMongo(db, { store: 'objects', migrations: OBJECTS_MONGO_MIGRATIONS, mode, earlierRelease, ...(log ? { log } : {}) })
}

/**
 * The collections, at this release's version (open-store.ts checks the version first when the service
 * must not migrate). Safe to run from several replicas at once: one migrates, the others wait.
 */
export async function ensureSchema (db: Db): Promise<Collections> {
  await migrateObjectsMongo(db, 'migrate')
  return collectionsOf(db)
}

/**
 * Once, for objects written before the search trigrams existed: they get theirs. Idempotent, so
 * replicas starting together only repeat each other's work; writes from then on keep the field.
 */
async function backfillTrigrams (c: Collections): Promise<void> {
  const missing = c.objects.find({ search_trigrams: { $exists: false } }, { projection: SEARCHED_PROJECTION })
  let batch: AnyBulkWriteOperation<ObjectDoc>[] = []
  for await (const doc of missing) {
    batch.push({ updateOne: { filter: { _id: doc._id }, update: { $set: { search_trigrams: trigramsOf(...searchedTexts(doc)) } } } })
    if (batch.length === 500) {
      await c.objects.bulkWrite(batch, { ordered: false, writeConcern: DURABLE })
      batch = []
    }
  }
  if (batch.length > 0) await c.objects.bulkWrite(batch, { ordered: false, writeConcern: DURABLE })
}

function collectionsOf (db: Db): Collections {
  return {
    objects: db.collection<ObjectDoc>('objects'),
    tree: db.collection<TreeDoc>('tree'),
    relations: db.collection<RelationDoc>('relations'),
    tags: db.collection<TagDoc>('tags'),
    categories: db.collection<CategoryDoc>('categories'),
    counters: db.collection<CounterDoc>('counters'),
    uploads: db.collection<UploadDoc>('uploads'),
    changes: db.collection<ChangeDoc>('changes'),
    meta: db.collection<MetaDoc>('meta'),
    webhooks: db.collection<WebhookDoc>('webhooks'),
    deliveries: db.collection<DeliveryDoc>('webhook_deliveries'),
    leases: db.collection<LeaseDoc>('leases'),
    idempotency: db.collection<IdempotencyDoc>('idempotency'),
    trash: db.collection<TrashDoc>('trash'),
    revisions: db.collection<RevisionDoc>('revisions'),
    locks: db.collection<LockDoc>('locks'),
  }
}

/** MongoDB's error code for a unique-index violation. */
export const DUPLICATE_KEY = 11000
