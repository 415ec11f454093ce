import { rowAccess, type AccessColumns, type ChangeDraft } from '../../core/change-events.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { SavedChildRow, Status, Visibility } from '../../core/types.js'
import type { NewObject, ObjectChange, OutcomeRow, WriteSteps } from '../../core/write-steps.js'
import { loadDetails } from './details.postgres.js'
import { keepOutcome } from './idempotency.postgres.js'
import { getObject, setPermissions } from './objects.postgres.js'
import { relationCounts, removeRelation, replaceRelation, saveRelation } from './relations.postgres.js'
import { addRevision, dropRevisions } from './revisions.postgres.js'
import { advanceWatermark, windowRows } from './schedule.postgres.js'
import type { PgWrite } from './transactions.postgres.js'
import { inTrash, moveToTrash, purgeTrashed, takeFromTrash } from './trash.postgres.js'
import { childCounts, hasChildren, isAncestor, lockTree, placeChild, placeNew, positionOf, unplaceChild } from './tree.postgres.js'
import { claimUpload } from './uploads.postgres.js'
import { deleteObject, insertObject, updateObject, upsertVocabulary } from './writes.postgres.js'

/**
 * The steps of a write on PostgreSQL: each a statement or a few on the transaction's connection, awaited
 * one after the other (core/unit-of-work.ts). One object per transaction: it knows the objects the write
 * created, whose placing under a parent is one statement (a new object is a leaf no other writer knows).
 */
export class PostgresSteps implements WriteSteps {
  /** objects this transaction inserted and placed nothing under: leaves no other writer knows */
  private readonly unplaced = new Set<number>()
  constructor (private readonly tx: PgWrite) {}

  /** the row locked: a write reads its object before and after, as no other writer can change it meanwhile */
  record (id: number) { return getObject(this.tx.db, { id }, true) }
  /**
   * locked as `record` locks it: a write that found the object keeps it until it ends, and one that waited
   * for another's deletion of it (another replica's) finds it gone, instead of deleting it a second time
   */
  async exists (id: number) { return (await this.tx.db.one('SELECT 1 FROM objects WHERE id = @id FOR NO KEY UPDATE', { id })) !== undefined }
  /** locked as `record` locks it: what a write finds before it changes the row */
  async access (id: number) {
    const row = await this.tx.db.one<AccessColumns>('SELECT status, read_groups, write_groups, start_date, end_date FROM objects WHERE id = @id FOR NO KEY UPDATE', { id })
    return row === undefined ? null : rowAccess(row)
  }

  details (ids: number[]) { return loadDetails(this.tx.db, ids) }
  relationCounts (ids: number[], vis: Visibility) { return relationCounts(this.tx.db, ids, vis) }
  childCounts (ids: number[], vis: Visibility) { return childCounts(this.tx.db, ids, vis) }
  /** the cycle check of a placement: under the tree's lock, so no move commits between it and the placement */
  async isAncestor (a: number, d: number) {
    await lockTree(this.tx.db, false)
    return isAncestor(this.tx.db, a, d)
  }

  /** under the tree's lock, as a trashing takes it: no placement under the object commits between the check and the write's end */
  async hasChildren (p: number) {
    await lockTree(this.tx.db, false)
    return hasChildren(this.tx.db, p)
  }

  position (p: number, c: number) { return positionOf(this.tx.db, p, c) }

  async insertObject (object: NewObject, now: number) {
    const { id } = await insertObject(this.tx, object, now)
    this.unplaced.add(id)
    return id
  }

  updateObject (id: number, change: ObjectChange, now: number) { return updateObject(this.tx.db, id, change, now) }
  deleteObject (id: number) { return deleteObject(this.tx.db, id, true) }
  setPermissions (id: number, read: string[], write: string[]) { return setPermissions(this.tx.db, id, read, write) }
  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }) { return upsertVocabulary(this.tx.db, kind, item) }

  placeChild (p: number, c: number, priority: number | null): Promise<SavedChildRow> {
    this.tx.linked(c)
    // a parent is a leaf no more: placing it in turn joins its subtree
    this.unplaced.delete(p)
    if (priority === null && this.unplaced.has(c)) return placeNew(this.tx.db, p, c)
    return placeChild(this.tx.db, p, c, priority)
  }

  unplaceChild (p: number, c: number) { return unplaceChild(this.tx.db, p, c) }
  saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite) {
    this.tx.linked(id)
    this.tx.linked(item.related_id)
    return saveRelation(this.tx.db, id, name, inverse, item)
  }

  replaceRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return replaceRelation(this.tx.db, id, name, inverse, item) }
  removeRelation (id: number, name: string, inverse: string, relatedId: number) { return removeRelation(this.tx.db, id, name, inverse, relatedId) }

  addRevision (id: number, revision: Omit<RevisionRecord, 'revision'>) { return addRevision(this.tx.db, id, revision) }
  dropRevisions (id: number, below: number | null) { return dropRevisions(this.tx.db, id, below) }
  claimUpload (claim: UploadClaim) { return claimUpload(this.tx.db, claim) }
  keepOutcome (row: OutcomeRow, replacesUpTo: number) { return keepOutcome(this.tx.db, row, replacesUpTo) }
  appendChanges (drafts: readonly ChangeDraft[]) { return this.tx.record(drafts) }

  inTrash (id: number) { return inTrash(this.tx.db, id) }
  moveToTrash (id: number, userId: number, now: number) { return moveToTrash(this.tx.db, id, userId, now) }
  takeFromTrash (id: number) { return takeFromTrash(this.tx.db, id) }
  purgeTrashed (id: number) { return purgeTrashed(this.tx.db, id) }

  advanceWatermark (now: number) { return advanceWatermark(this.tx.db, now) }
  windowRows (after: number, upTo: number, statuses: Status[]) { return windowRows(this.tx.db, after, upTo, statuses) }
}
