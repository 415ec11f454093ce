import { rowAccess, type ChangeDraft } from '../../core/change-events.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { Status, Visibility } from '../../core/types.js'
import type { NewObject, ObjectChange, OutcomeRow, WriteSteps } from '../../core/write-steps.js'
import { keepOutcome } from './idempotency.mongo.js'
import { loadDetails, setPermissions } from './objects.mongo.js'
import { columnsNow, pendingChange, type PendingChange } from './outbox.mongo.js'
import { relationCounts, removeRelation, replaceRelation, saveRelation } from './relations.mongo.js'
import { addRevision, dropRevisions } from './revisions.mongo.js'
import { toRecord } from './rows.mongo.js'
import { advanceWatermark, windowRows } from './schedule.mongo.js'
import type { Tx } from './schema.mongo.js'
import { inTrash, moveToTrash, purgeTrashed, takeFromTrash } from './trash.mongo.js'
import { childCounts, isAncestor, placeChild, positionOf, unplaceChild } from './tree.mongo.js'
import { claimUpload } from './uploads.mongo.js'
import { deleteObject, insertObject, updateObject, upsertVocabulary } from './writes.mongo.js'

/**
 * The steps of one MongoDB transaction (a new object for each attempt of it): each passes the
 * transaction's session, and core takes them one at a time. Change events are resolved as the step
 * that appends them runs (their surroundings then) and numbered when the transaction commits (`pending`).
 */
export class MongoSteps implements WriteSteps {
  readonly pending: PendingChange[] = []
  constructor (private readonly tx: Tx) {}

  async record (id: number) {
    const doc = await this.tx.c.objects.findOne({ _id: id }, { session: this.tx.session })
    return doc === null ? null : toRecord(doc)
  }

  async exists (id: number) {
    return await this.tx.c.objects.findOne({ _id: id }, { projection: { _id: 1 }, session: this.tx.session }) !== null
  }

  async access (id: number) {
    const columns = await columnsNow(this.tx, id)
    return columns === null ? null : rowAccess(columns)
  }

  details (ids: number[]) { return loadDetails(this.tx.c, ids, this.tx) }
  relationCounts (ids: number[], vis: Visibility) { return relationCounts(this.tx.c, ids, vis, this.tx) }
  childCounts (ids: number[], vis: Visibility) { return childCounts(this.tx.c, ids, vis, this.tx) }
  isAncestor (a: number, d: number) { return isAncestor(this.tx.c, a, d, this.tx) }
  async hasChildren (p: number) { return (await this.tx.c.tree.countDocuments({ parent_id: p }, { limit: 1, session: this.tx.session })) > 0 }
  position (p: number, c: number) { return positionOf(this.tx.c, p, c, this.tx) }

  insertObject (object: NewObject, now: number) { return insertObject(this.tx, object, now) }
  updateObject (id: number, change: ObjectChange, now: number) { return updateObject(this.tx, id, change, now) }
  deleteObject (id: number) { return deleteObject(this.tx, id) }
  setPermissions (id: number, read: string[], write: string[]) { return setPermissions(this.tx, id, read, write) }
  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }) { return upsertVocabulary(this.tx, kind, item) }

  placeChild (p: number, c: number, priority: number | null) { return placeChild(this.tx, p, c, priority) }
  unplaceChild (p: number, c: number) { return unplaceChild(this.tx, p, c) }
  saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return saveRelation(this.tx, id, name, inverse, item) }
  replaceRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return replaceRelation(this.tx, id, name, inverse, item) }
  removeRelation (id: number, name: string, inverse: string, relatedId: number) { return removeRelation(this.tx, id, name, inverse, relatedId) }

  addRevision (id: number, revision: Omit<RevisionRecord, 'revision'>) { return addRevision(this.tx, id, revision) }
  dropRevisions (id: number, below: number | null) { return dropRevisions(this.tx, id, below) }
  claimUpload (claim: UploadClaim) { return claimUpload(this.tx, claim) }
  keepOutcome (row: OutcomeRow, replacesUpTo: number) { return keepOutcome(this.tx, row, replacesUpTo) }

  async appendChanges (drafts: readonly ChangeDraft[]) {
    for (const draft of drafts) this.pending.push(await pendingChange(this.tx, draft))
  }

  inTrash (id: number) { return inTrash(this.tx, id) }
  moveToTrash (id: number, userId: number, now: number) { return moveToTrash(this.tx, id, userId, now) }
  takeFromTrash (id: number) { return takeFromTrash(this.tx, id) }
  purgeTrashed (id: number) { return purgeTrashed(this.tx, id) }

  advanceWatermark (now: number) { return advanceWatermark(this.tx, now) }
  windowRows (after: number, upTo: number, statuses: Status[]) { return windowRows(this.tx, after, upTo, statuses) }
}
