import { rowAccess, type ChangeDraft } from '../../core/change-events.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { ObjectRecord, SavedChildRow, Status, Visibility } from '../../core/types.js'
import type { NewObject, ObjectChange, OutcomeRow, WriteSteps } from '../../core/write-steps.js'
import { loadDetails } from './details.postgres.js'
import { keepOutcome } from './idempotency.postgres.js'
import { accessColumns, getObject, setPermissions } from './objects.postgres.js'
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
 *
 * What it knows of the objects it created also spares a create two of its dozen round trips (each costs
 * both processes more than the statement itself; loadtest/README.md, "A create's own rows, not read
 * back"): their rows as the insert answered them, until a step writes an object's row, and their relation
 * counts, none until the write relates them (no other transaction can see them, let alone relate them).
 */
export class PostgresSteps implements WriteSteps {
  /** objects this transaction inserted and placed nothing under: leaves no other writer knows */
  private readonly unplaced = new Set<number>()
  /** objects this transaction inserted, with their rows as inserted while no step wrote an object's row since */
  private readonly inserted = new Map<number, ObjectRecord | null>()
  /** objects this transaction related, at either end: an inserted one among them has relations now */
  private readonly related = new Set<number>()
  constructor (private readonly tx: PgWrite) {}

  /** the row locked: a write reads its object before and after, as no other writer can change it meanwhile (its own insert holds it already) */
  async record (id: number) { return this.inserted.get(id) ?? await getObject(this.tx.db, { id }, true) }
  /**
   * locked as `record` locks it: a write that found the object keeps it until it ends, and one that waited
   * for another's deletion of it (another replica's) finds it gone, instead of deleting it a second time
   */
  async exists (id: number) { return (await this.tx.db.one('SELECT 1 FROM objects WHERE id = @id FOR NO KEY UPDATE', { id })) !== undefined }
  /** locked as `record` locks it: what a write finds before it changes the row */
  async access (id: number) {
    const row = await accessColumns(this.tx.db, id, true)
    return row === undefined ? null : rowAccess(row)
  }

  details (ids: number[]) { return loadDetails(this.tx.db, ids) }
  async relationCounts (ids: number[], vis: Visibility) {
    const unknown = ids.filter((id) => !this.inserted.has(id) || this.related.has(id))
    return unknown.length === 0 ? new Map<number, Map<string, number>>() : await relationCounts(this.tx.db, unknown, vis)
  }

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
    const record = await insertObject(this.tx, object, now)
    this.unplaced.add(record.id)
    this.inserted.set(record.id, record)
    return record.id
  }

  updateObject (id: number, change: ObjectChange, now: number) { this.rowsWritten(); return updateObject(this.tx.db, id, change, now) }
  deleteObject (id: number) { this.rowsWritten(); return deleteObject(this.tx.db, id, true) }
  setPermissions (id: number, read: string[], write: string[]) { this.rowsWritten(); return setPermissions(this.tx.db, id, read, write) }
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
    this.relate(id, item.related_id)
    return saveRelation(this.tx.db, id, name, inverse, item)
  }

  replaceRelation (id: number, name: string, inverse: string, item: RelationItemWrite) {
    this.relate(id, item.related_id)
    return replaceRelation(this.tx.db, id, name, inverse, item)
  }

  removeRelation (id: number, name: string, inverse: string, relatedId: number) { return removeRelation(this.tx.db, id, name, inverse, relatedId) }

  addRevision (id: number, revision: Omit<RevisionRecord, 'revision'>) { return addRevision(this.tx.db, id, revision) }
  dropRevisions (id: number, below: number | null) { return dropRevisions(this.tx.db, id, below) }
  claimUpload (claim: UploadClaim) { return claimUpload(this.tx.db, claim) }
  keepOutcome (row: OutcomeRow, replacesUpTo: number) { return keepOutcome(this.tx.db, row, replacesUpTo) }
  appendChanges (drafts: readonly ChangeDraft[]) { return this.tx.record(drafts) }

  inTrash (id: number) { return inTrash(this.tx.db, id) }
  moveToTrash (id: number, userId: number, now: number) { this.rowsWritten(); return moveToTrash(this.tx.db, id, userId, now) }
  takeFromTrash (id: number) { this.rowsWritten(); return takeFromTrash(this.tx.db, id) }
  purgeTrashed (id: number) { this.rowsWritten(); return purgeTrashed(this.tx.db, id) }

  advanceWatermark (now: number) { return advanceWatermark(this.tx.db, now) }
  windowRows (after: number, upTo: number, statuses: Status[]) { return windowRows(this.tx.db, after, upTo, statuses) }

  /** a step that may write objects' rows: the rows as inserted are read again from then on */
  private rowsWritten (): void {
    for (const id of this.inserted.keys()) this.inserted.set(id, null)
  }

  private relate (a: number, b: number): void {
    this.related.add(a)
    this.related.add(b)
  }
}
