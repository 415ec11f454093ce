import type { ChangeEvent } from './change-events.js'
import type { FixturePlan } from './fixtures.plan.js'
import type { IdempotencyClaim, IdempotencyRecord } from './idempotency.js'
import type { Clause, ListScope, Position } from './list-query.js'
import type { ObjectPatch, ObjectWrite } from './object-input.js'
import type { ObjectRef } from './object-ref.js'
import type { ObjectTypeName } from './object-types.js'
import type { RevisionRecord } from './revisions.js'
import type { SortKey } from '@content/api-schema'
import type { ChildCounts, ChildScope, ListFilter, MediaFileRecord, ObjectDetails, ObjectRecord, RelatedRow, RelationItemWrite, SavedChildRow, SavedRelationRow, Status, Visibility } from './types.js'
import type { ImportWork, Steps, Tx, Work } from './unit-of-work.js'
import type { DeliveryRecord, WebhookRecord, WebhookSummary } from './webhooks.js'

/**
 * The ports of the objects service: its storage, shaped by the domain. The adapters (store/sqlite,
 * store/mongo) implement the reads and the steps of a write (StoreAdapter); core composes the writes
 * (ObjectsStore); the core needs nothing else of a store.
 */

/** One page of a list: the ids in list order and the total over every page. */
export interface IdPage {
  ids: number[]
  total: number
}

/** What every store list takes: who sees what, the filters, and the slice. */
export interface ListQuery {
  visibility: Visibility
  filter: ListFilter
  offset: number
  limit: number
  /** an id left out of the list (siblings leave out the object itself) */
  exclude?: number
}

export type { ChildCounts, ChildScope, RelationItemWrite }

export interface ObjectsReads {
  get(ref: ObjectRef): Promise<ObjectRecord | null>
  /** every object's id above `afterId`, ascending, at most `limit`, whatever its status or permissions */
  idsAfter(afterId: number, limit: number): Promise<number[]>
  /** rows of the ids that exist, in no particular order */
  listByIds(ids: number[]): Promise<ObjectRecord[]>
  /** translations, properties, geo tags, tags, categories, date items, parents of each id */
  details(ids: number[]): Promise<Map<number, ObjectDetails>>
  typesOf(ids: number[]): Promise<Map<number, ObjectTypeName>>
  nicknamesTaken(nicknames: string[]): Promise<string[]>
  /** start dates after `now` and end dates at or after `now` (window boundaries still to come) */
  windowDates(now: number): Promise<{ starts: number[], ends: number[] }>
}

/** The reads, and the writes core composes of steps (core/writes/objects.writes.ts). */
export interface ObjectsPort extends ObjectsReads {
  setPermissions(id: number, read: string[], write: string[]): Promise<boolean>
  create(input: ObjectWrite, now: number): Promise<number>
  update(id: number, patch: ObjectPatch, now: number): Promise<boolean>
  /** removes the object, its tree rows and relations both ways */
  remove(id: number): Promise<'removed' | 'absent'>
}

export interface TreeReads {
  children(parentId: number, scope: ChildScope, query: ListQuery): Promise<IdPage>
  /** every object below `nodeId`, each once; `tree` = priority under its parent in the subtree, then id */
  descendants(nodeId: number, order: 'tree' | 'id', query: ListQuery): Promise<IdPage>
  /** direct parents, first parent (earliest placed) first */
  parents(objectId: number): Promise<number[]>
  /** the root-first chain of first parents above the object */
  ancestors(objectId: number): Promise<number[]>
  childCounts(parentIds: number[], visibility: Visibility): Promise<Map<number, ChildCounts>>
  position(parentId: number, childId: number): Promise<number | null>
  /** whether any object, whatever its status or permissions, sits under `parentId` */
  hasChildren(parentId: number): Promise<boolean>
  isAncestor(ancestorId: number, descendantId: number): Promise<boolean>
}

/** The reads, and the writes core composes of steps (core/writes/links.writes.ts). */
export interface TreePort extends TreeReads {
  /** with `idempotency`, records the key and the saved rows in the same transaction (or raises IdempotencyKeyTaken) */
  addChildren(parentId: number, items: { child_id: number, priority: number | null }[], idempotency?: IdempotencyClaim): Promise<SavedChildRow[]>
  setPriority(parentId: number, childId: number, priority: number): Promise<boolean>
  removeChild(parentId: number, childId: number): Promise<'removed' | 'absent'>
}

export interface RelationsReads {
  list(objectId: number, name: string, query: ListQuery): Promise<{ items: RelatedRow[], total: number }>
  get(objectId: number, name: string, relatedId: number): Promise<RelatedRow | null>
  /** per relation name and object: its first `limit` rows (in list order) whose objects the visibility admits */
  firstOf(objectIds: number[], names: string[], visibility: Visibility, limit: number): Promise<Map<string, Map<number, RelatedRow[]>>>
  /** per object: relation name → number of related objects the visibility admits (zero counts omitted) */
  counts(objectIds: number[], visibility: Visibility): Promise<Map<number, Map<string, number>>>
  /** ids related to the object under any name */
  neighbours(objectId: number): Promise<number[]>
}

/** The reads, and the writes core composes of steps (core/writes/links.writes.ts). */
export interface RelationsPort extends RelationsReads {
  /**
   * creates or updates `objectId -name-> item` and its inverse row; with `idempotency`, records the key
   * and the saved rows in the same transaction (or raises IdempotencyKeyTaken)
   */
  save(objectId: number, name: string, inverse: string, items: RelationItemWrite[], idempotency?: IdempotencyClaim): Promise<SavedRelationRow[]>
  replace(objectId: number, name: string, inverse: string, item: RelationItemWrite): Promise<boolean>
  remove(objectId: number, name: string, inverse: string, relatedId: number): Promise<'removed' | 'absent'>
}

/** A checked, stored file waiting for the write that attaches it (decisions §12). */
export interface PendingUpload {
  /** SHA-256 hex of the token; the token itself is never stored */
  token_hash: string
  user_id: number
  object_type: ObjectTypeName
  file: MediaFileRecord
  /** ms since the epoch; the upload counts until then, exclusive */
  expires_at: number
}

/** A list of decisions §15: the rows of a scope a visibility admits, filtered, sorted, sliced. */
export interface Selection {
  visibility: Visibility
  filter: ListFilter
  /** references already resolved to ids the caller may read */
  clauses: Clause[]
  /** the order (sortKeysOf: the default made explicit); `id` ascending ends it */
  sort: SortKey[]
  /** keyset paging: rows after this position (then `offset` is 0) */
  after: Position | null
  offset: number
  limit: number
  /** count the rows over every page */
  count: boolean
}

export interface SelectedRow {
  id: number
  position: Position
  /** relation lists: the relation's priority and params */
  priority: number | null
  params: string | null
}

export interface ListsPort {
  /** a page of the scope's rows and, when asked, their total (distinct objects) */
  select(scope: ListScope, selection: Selection): Promise<{ rows: SelectedRow[], total: number | null }>
}

/**
 * Pending uploads. None of these writes changes what a read shows, so none tells onChange listeners;
 * an upload is consumed by the object write that claims it (ObjectWrite.claim).
 */

export interface UploadsPort {
  /** stores the upload, dropping the ones expired at `now` */
  add(upload: PendingUpload, now: number): Promise<void>
  /** the upload with this token hash, unless expired at `now` */
  get(tokenHash: string, now: number): Promise<PendingUpload | null>
  /** the keys among `keys` (in their order) that some object's file uses or some upload unexpired at `now` holds */
  filesInUse(keys: string[], now: number): Promise<string[]>
}

/** The outbox: every committed write's change events (decisions §13), numbered in commit order. */
export interface ChangesPort {
  /** the events numbered above `seq`, in order, at most `limit` */
  after(seq: number, limit: number): Promise<ChangeEvent[]>
  /** the oldest retained number (null: none retained) and the last number given (0: none ever) */
  bounds(): Promise<{ first: number | null, last: number }>
  /** drops the events committed before `before` (ms) numbered at most `keepAfter`; returns how many */
  prune(before: number, keepAfter: number): Promise<number>
}

/** Webhook subscriptions and deliveries (decisions §13), and the lease of the loop that delivers them. */
export interface WebhooksPort {
  /** stores a subscription starting after the last event committed so far; returns it */
  add(webhook: Omit<WebhookRecord, 'after_seq'>): Promise<WebhookRecord>
  list(): Promise<WebhookSummary[]>
  get(id: string): Promise<WebhookRecord | null>
  /** removes the subscription and its deliveries */
  remove(id: string): Promise<boolean>
  /** newest first */
  deliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]>
  delivery(id: string): Promise<DeliveryRecord | null>
  /** the subscription's oldest pending delivery (the one that holds the later ones back) */
  head(webhookId: string): Promise<DeliveryRecord | null>
  /**
   * Queues `delivery` (null: none wanted) and moves the subscription's position to `afterSeq`, in one
   * transaction, unless the position moved meanwhile; false then.
   */
  enqueue(webhookId: string, fromSeq: number, afterSeq: number, delivery: DeliveryRecord | null): Promise<boolean>
  /** stores a delivery's state after an attempt or a redelivery */
  save(delivery: DeliveryRecord): Promise<void>
  /** drops delivered and failed deliveries created before `before` (ms); returns how many */
  pruneDeliveries(before: number): Promise<number>
  /** the lowest position of any subscription (events after it must be kept); null: none */
  lowestPosition(): Promise<number | null>
  /** takes or renews the named lease for `holder` until `now + ttlMs`; false while another holds it */
  lease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean>
  /** ends the named lease if `holder` has it */
  release(name: string, holder: string): Promise<void>
}

/**
 * Idempotency keys of guarded writes. A key is kept by the write it guards, in its transaction
 * (ObjectWrite.idempotency, relations.save, tree.addChildren); these read it, keep the answer given,
 * and drop old ones. None changes what a read shows, so none tells onChange listeners.
 */
export interface IdempotencyPort {
  /** the record of the user's key, unless it expired at `now` */
  get(userId: number, key: string, now: number): Promise<IdempotencyRecord | null>
  /** keeps the answer (JSON) the write of this claim got, for its replays */
  respond(claim: IdempotencyClaim, response: string): Promise<void>
  /** drops the records expired at `now`; returns how many */
  prune(now: number): Promise<number>
}

/** The keys' rows as an adapter keeps them: core says which are live (IDEMPOTENCY_WINDOW_MS, composeStore). */
export interface IdempotencyRows {
  /** the row of the user's key created after `createdAfter` */
  get(userId: number, key: string, createdAfter: number): Promise<IdempotencyRecord | null>
  /** stores the answer on the claim's row */
  respond(claim: IdempotencyClaim, response: string): Promise<void>
  /** drops the rows created at or before `createdUpTo`; returns how many */
  prune(createdUpTo: number): Promise<number>
}

/** A trashed object's entry, enough to decide who may see it (decisions §16). */
export interface TrashEntry {
  id: number
  object_type: ObjectTypeName
  read_groups: string[]
  write_groups: string[]
  /** when it was trashed, ms */
  deleted: number
  /** who trashed it */
  user_id: number
}

/** A trashed object as it was when trashed: its row, its details, and its parents then (first parent first). */
export interface TrashedObject extends TrashEntry {
  record: ObjectRecord
  details: ObjectDetails
  parent_ids: number[]
}

/**
 * The trash (decisions §16). A trashed object leaves every read (its rows, tree edges and relations go,
 * kept in its trash entry) but keeps its id, nickname and file until it is purged.
 */
export interface TrashReads {
  /** every entry, newest first */
  list(): Promise<TrashEntry[]>
  /** the entries of `ids` that are in the trash, in no particular order */
  get(ids: number[]): Promise<TrashedObject[]>
  /** ids trashed before `before` (ms), oldest first, at most `limit` */
  expired(before: number, limit: number): Promise<number[]>
}

/** The reads, and the writes core composes of steps (core/writes/trash.writes.ts). */
export interface TrashPort extends TrashReads {
  /** moves the object to the trash with its edges and relations, recording object.trashed */
  put(id: number, userId: number, now: number): Promise<'trashed' | 'absent' | 'has children'>
  /**
   * Brings the object back: its row, its extras, its relations whose other end exists, and its place
   * under `parents` (null: under the parents it had that still exist), recording object.restored.
   */
  restore(id: number, parents: number[] | null): Promise<'restored' | 'absent'>
  /** removes the entry for good, recording object.deleted */
  purge(id: number): Promise<'purged' | 'absent'>
}

/**
 * Revisions of objects' own fields (decisions §16). They are written by the object writes themselves
 * (create, update: core/writes/objects.writes.ts), in their transactions, as REVISIONS_KEEP allows.
 */
export interface RevisionsPort {
  /** newest first */
  list(objectId: number, offset: number, limit: number): Promise<{ items: RevisionRecord[], total: number }>
  get(objectId: number, revision: number): Promise<RevisionRecord | null>
}

/** Scheduled publication (decisions §16; scheduled-publication.ts). */
export interface SchedulePort {
  /**
   * One round at `now`, in one transaction: reads the store's watermark W, records the window events of
   * (W, now] (windowEvents) of the objects whose status is in `statuses`, and moves W to `now`; answers
   * how many it recorded. The first round a store ever runs only sets W: nothing before it is announced.
   * A round whose `now` is not past W (another process's round got there first) records nothing.
   */
  announce(now: number, statuses: Status[]): Promise<number>
}

export interface VocabularyPort {
  existingCategories(names: string[]): Promise<string[]>
}

/** What every store gives, adapter or composed alike. */
interface StoreBase {
  readonly kind: 'sqlite' | 'postgres' | 'mongodb'
  /** random, kept with the data: a change-feed position means something only in the store that gave it */
  readonly storeId: string
  readonly lists: ListsPort
  readonly vocabulary: VocabularyPort
  readonly uploads: UploadsPort
  readonly changes: ChangesPort
  readonly webhooks: WebhooksPort
  readonly revisions: RevisionsPort
  /** the number of the last event this process committed (0: none yet) */
  committedSeq(): number
  /** resolves once every write committed before the call is on disk: no answer leaves before what it saw is durable */
  durable(): Promise<void>
  /** `listener` runs after every committed write (and, for Mongo, every change-stream event) */
  onChange(listener: () => void): () => void
  close(): Promise<void>
}

/**
 * What a store adapter implements (store/sqlite, store/mongo): the reads, shaped by the domain and tuned
 * per store, and a unit of work that runs a write composed by core (core/writes/*) over its steps
 * (write-steps.ts) in one transaction. composeStore (core/composed-store.ts) makes the ObjectsStore of it.
 */
export interface StoreAdapter extends StoreBase {
  readonly objects: ObjectsReads
  readonly tree: TreeReads
  readonly relations: RelationsReads
  readonly trash: TrashReads
  readonly idempotency: IdempotencyRows
  /** runs `work` over the steps in one transaction; resolves with its answer once committed (and told to onChange listeners) */
  write<T>(work: Work<T>): Promise<T>
  /** runs a fixtures import's `work` in one transaction of its own, after the writes before it */
  importInBulk<T>(work: ImportWork<T>): Promise<T>
  /** objects a fixtures import writes per transaction at most (null: a file is one transaction) */
  readonly importLimit: number | null
}

/** The storage of the objects service, shaped by the domain. Every write commits atomically. */
export interface ObjectsStore extends StoreBase {
  readonly objects: ObjectsPort
  readonly tree: TreePort
  readonly relations: RelationsPort
  readonly trash: TrashPort
  readonly idempotency: IdempotencyPort
  readonly schedule: SchedulePort
  /** runs a write composed of steps (core/writes/*) in one transaction; its answer once committed */
  write<T>(work: (tx: Tx) => Steps<T>): Promise<T>
  /** writes a validated fixtures plan (in one transaction unless the adapter bounds them); ref → id */
  applyFixtures(plan: FixturePlan, now: number): Promise<Record<string, number>>
}
