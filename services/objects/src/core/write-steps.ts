import type { ChangeDraft, RowAccess } from './change-events.js'
import type { WriteOutcome } from './idempotency.js'
import type { ObjectPatch, ObjectWrite, UploadClaim } from './object-input.js'
import type { RevisionRecord } from './revisions.js'
import type { WindowRow } from './scheduled-publication.js'
import type { ChildCounts, ObjectDetails, ObjectRecord, RelationItemWrite, SavedChildRow, SavedRelationRow, Status, Visibility } from './types.js'

/** What a step answers: the value itself where the store is synchronous, or a promise of it. */
export type Step<T> = T | PromiseLike<T>

/*
 * The steps of a write: what an adapter translates into its store's statements, inside the transaction
 * its unit of work opened (StoreAdapter.write). Core composes them (core/writes/*): which rows a write
 * touches, in which order, which change events it records and when, its revision, its idempotency key,
 * its upload claim. A step decides nothing of that: it does one thing to the store and answers what it
 * found. The reads among them read inside the transaction, so they see its writes.
 */

/** An object's own parts as a create writes them (its links, claim and key are steps of their own). */
export type NewObject = Omit<ObjectWrite, 'links' | 'claim' | 'idempotency'>

/** The parts of an object an update writes: present columns and extras only. */
export type ObjectChange = Omit<ObjectPatch, 'links' | 'claim' | 'idempotency'>

/** A guarded write's idempotency key and what it did, as the store keeps it. */
export interface OutcomeRow {
  user_id: number
  key: string
  request_hash: string
  outcome: WriteOutcome
  /** ms */
  created_at: number
}

/** Where a trashed object sat (first parent first): what a restore may put back. */
export interface TrashedPlace {
  parent_id: number
  priority: number | null
}

export interface WriteSteps {
  // reads inside the transaction
  /** the object's record, null when there is none */
  record(id: number): Step<ObjectRecord | null>
  exists(id: number): Step<boolean>
  /** who may read the object by its row (null: there is none), as a write finds it before it changes it */
  access(id: number): Step<RowAccess | null>
  details(ids: number[]): Step<Map<number, ObjectDetails>>
  relationCounts(ids: number[], visibility: Visibility): Step<Map<number, Map<string, number>>>
  childCounts(parentIds: number[], visibility: Visibility): Step<Map<number, ChildCounts>>
  /** as TreePort.isAncestor: an object is its own ancestor */
  isAncestor(ancestorId: number, descendantId: number): Step<boolean>
  /** whether a child sits under the object, as no placement can change until the write ends */
  hasChildren(parentId: number): Step<boolean>
  position(parentId: number, childId: number): Step<number | null>

  // objects
  /** inserts the row and its extras (a nickname generated from the title when null); answers its id */
  insertObject(object: NewObject, now: number): Step<number>
  /** writes the present columns and extras; false when the object does not exist */
  updateObject(id: number, change: ObjectChange, now: number): Step<boolean>
  /** removes the object with its tree edges (what sat below keeps its other paths) and relations both ways */
  deleteObject(id: number): Step<boolean>
  setPermissions(id: number, read: string[], write: string[]): Step<boolean>
  /** creates a category or tag, or updates its label */
  saveVocabulary(kind: 'tags' | 'categories', item: { name: string, label: string }): Step<void>

  // links
  /** places the child (a new edge: appended when no priority) or moves it among its siblings */
  placeChild(parentId: number, childId: number, priority: number | null): Step<SavedChildRow>
  unplaceChild(parentId: number, childId: number): Step<boolean>
  /**
   * Creates `objectId -name-> related` and its inverse row, or updates an existing pair: a given priority
   * replaces the old one, given params replace the shared params.
   */
  saveRelation(objectId: number, name: string, inverse: string, item: RelationItemWrite): Step<SavedRelationRow>
  /** sets priority and params of an existing pair (params on both rows); false when there is none */
  replaceRelation(objectId: number, name: string, inverse: string, item: RelationItemWrite): Step<boolean>
  removeRelation(objectId: number, name: string, inverse: string, relatedId: number): Step<boolean>

  // rows core decides
  /** stores the object's next revision (numbered from 1 per object); answers its number */
  addRevision(objectId: number, revision: Omit<RevisionRecord, 'revision'>): Step<number>
  /** drops the object's revisions numbered below `below` (null: all of them) */
  dropRevisions(objectId: number, below: number | null): Step<void>
  /** consumes the unexpired pending upload, or fails the write with UploadClaimConflict */
  claimUpload(claim: UploadClaim): Step<void>
  /**
   * Stores the key's row, replacing one created at or before `replacesUpTo` (expired); a live row of the
   * key fails the write with IdempotencyKeyTaken.
   */
  keepOutcome(row: OutcomeRow, replacesUpTo: number): Step<void>
  /** appends change events to the outbox, their types and affected objects read as the store is now */
  appendChanges(drafts: readonly ChangeDraft[]): Step<void>

  // the trash (decisions §16)
  inTrash(id: number): Step<boolean>
  /** moves the object's rows into its trash entry (trashed by `userId` at `now`): its edges and relations go with it */
  moveToTrash(id: number, userId: number, now: number): Step<void>
  /**
   * Puts the trashed object's row and extras back, and its relations whose other end exists (the others
   * go into that end's entry, if it is trashed too); the entry goes. Answers where it sat, null when not trashed.
   */
  takeFromTrash(id: number): Step<TrashedPlace[] | null>
  /** removes the trash entry for good */
  purgeTrashed(id: number): Step<void>

  // scheduled publication (decisions §16)
  /**
   * Moves the store's watermark W to `now` and answers where it was; null when there was none (it is
   * set to `now`) or `now` is not past it (left as it is). Rounds of several processes run one after another here.
   */
  advanceWatermark(now: number): Step<number | null>
  /** objects whose status is in `statuses` with a window boundary in (after, upTo] */
  windowRows(after: number, upTo: number, statuses: Status[]): Step<WindowRow[]>
}

/**
 * The steps of a fixtures import: every row it writes involves an object it inserts, so an adapter may
 * write them in bulk, keeping what it looked up (positions, types, ancestors) instead of asking the store
 * row by row. Its events are appended as in any write, as the store is at that step. An adapter without
 * a bulk path takes them from its write steps (RowByRowImport, core/writes/fixtures.rows.ts).
 */
export interface ImportSteps {
  /** whether every id names an existing object */
  allExist(ids: number[]): Step<boolean>
  /** creates a category or tag, or updates its label */
  saveVocabulary(kind: 'tags' | 'categories', item: { name: string, label: string }): Step<void>
  /** inserts new objects in order (as insertObject each); answers their ids */
  insertNewObjects(objects: NewObject[], now: number): Step<number[]>
  /** places an object this import inserted under a parent it is not under yet, after the parent's last child */
  placeNewChild(parentId: number, childId: number): Step<void>
  /** relates an object this import inserted to one it is not related to yet, after each end's last relation */
  relateNew(objectId: number, name: string, inverse: string, relatedId: number, priority: number | null, params: string | null): Step<void>
  /** as WriteSteps.saveRelation: a pair the file lists again */
  saveRelation(objectId: number, name: string, inverse: string, item: RelationItemWrite): Step<SavedRelationRow>
  appendChanges(drafts: readonly ChangeDraft[]): Step<void>
}

/** The step names, for the taken form (unit-of-work.ts); the compiler holds them to the interfaces. */
export const WRITE_STEPS = [
  'record', 'exists', 'access', 'details', 'relationCounts', 'childCounts', 'isAncestor', 'hasChildren', 'position',
  'insertObject', 'updateObject', 'deleteObject', 'setPermissions', 'saveVocabulary',
  'placeChild', 'unplaceChild', 'saveRelation', 'replaceRelation', 'removeRelation',
  'addRevision', 'dropRevisions', 'claimUpload', 'keepOutcome', 'appendChanges',
  'inTrash', 'moveToTrash', 'takeFromTrash', 'purgeTrashed',
  'advanceWatermark', 'windowRows',
] as const satisfies readonly (keyof WriteSteps)[]

export const IMPORT_STEPS = [
  'allExist', 'saveVocabulary', 'insertNewObjects', 'placeNewChild', 'relateNew', 'saveRelation', 'appendChanges',
] as const satisfies readonly (keyof ImportSteps)[]

// every step named: a step added to an interface and not to its list does not compile
type Missing<S, L extends readonly unknown[]> = Exclude<keyof S, L[number]>
const everyWriteStep: Missing<WriteSteps, typeof WRITE_STEPS> extends never ? true : never = true
const everyImportStep: Missing<ImportSteps, typeof IMPORT_STEPS> extends never ? true : never = true
void everyWriteStep
void everyImportStep
