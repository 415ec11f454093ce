import { rowAccess, type ChangeDraft } from '../../core/change-events.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { Status, Visibility } from '../../core/types.js'
import type { NewObject, ObjectChange, OutcomeRow, WriteSteps } from '../../core/write-steps.js'
import { loadDetails } from './details.sqlite.js'
import { keepOutcome } from './idempotency.sqlite.js'
import { getObject, setPermissions } from './objects.sqlite.js'
import { accessColumns } from './outbox.sqlite.js'
import { relationCounts, removeRelation, replaceRelation, saveRelation } from './relations.sqlite.js'
import { addRevision, dropRevisions } from './revisions.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { advanceWatermark, windowRows } from './schedule.sqlite.js'
import type { RecordChanges } from './transactions.sqlite.js'
import { inTrash, moveToTrash, purgeTrashed, takeFromTrash } from './trash.sqlite.js'
import { childCounts, hasChildren, isAncestor, placeChild, positionOf, unplaceChild } from './tree.sqlite.js'
import { claimUpload } from './uploads.sqlite.js'
import { deleteObject, insertObject, objectExists, updateObject, upsertVocabulary } from './writes.sqlite.js'

/**
 * The steps of a write on SQLite: each one statement or a few, run at once on the connection, inside
 * the savepoint the unit of work opened (commits.sqlite.ts). One object serves every write of the store,
 * one after the other: `recording` is the outbox of the write in progress.
 */
export class SqliteSteps implements WriteSteps {
  recording: RecordChanges = () => { throw new Error('a step ran outside a write') }
  constructor (private readonly st: Statements) {}

  record (id: number) { return getObject(this.st, { id }) }
  exists (id: number) { return objectExists(this.st, id) }
  access (id: number) {
    const columns = accessColumns(this.st, id)
    return columns === undefined ? null : rowAccess(columns)
  }
  details (ids: number[]) { return loadDetails(this.st, ids) }
  relationCounts (ids: number[], vis: Visibility) { return relationCounts(this.st, ids, vis) }
  childCounts (ids: number[], vis: Visibility) { return childCounts(this.st, ids, vis) }
  isAncestor (a: number, d: number) { return isAncestor(this.st, a, d) }
  hasChildren (p: number) { return hasChildren(this.st, p) }
  position (p: number, c: number) { return positionOf(this.st, p, c) }

  insertObject (object: NewObject, now: number) { return insertObject(this.st, object, now) }
  updateObject (id: number, change: ObjectChange, now: number) { return updateObject(this.st, id, change, now) }
  deleteObject (id: number) { return deleteObject(this.st, id) }
  setPermissions (id: number, read: string[], write: string[]) { return setPermissions(this.st, id, read, write) }
  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }) { upsertVocabulary(this.st, kind, item) }

  placeChild (p: number, c: number, priority: number | null) { return placeChild(this.st, p, c, priority) }
  unplaceChild (p: number, c: number) { return unplaceChild(this.st, p, c) }
  saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return saveRelation(this.st, id, name, inverse, item) }
  replaceRelation (id: number, name: string, inverse: string, item: RelationItemWrite) { return replaceRelation(this.st, id, name, inverse, item) }
  removeRelation (id: number, name: string, inverse: string, relatedId: number) { return removeRelation(this.st, id, name, inverse, relatedId) }

  addRevision (id: number, revision: Omit<RevisionRecord, 'revision'>) { return addRevision(this.st, id, revision) }
  dropRevisions (id: number, below: number | null) { dropRevisions(this.st, id, below) }
  claimUpload (claim: UploadClaim) { claimUpload(this.st, claim) }
  keepOutcome (row: OutcomeRow, replacesUpTo: number) { keepOutcome(this.st, row, replacesUpTo) }
  appendChanges (drafts: readonly ChangeDraft[]) { this.recording(drafts) }

  inTrash (id: number) { return inTrash(this.st, id) }
  moveToTrash (id: number, userId: number, now: number) { moveToTrash(this.st, id, userId, now) }
  takeFromTrash (id: number) { return takeFromTrash(this.st, id) }
  purgeTrashed (id: number) { purgeTrashed(this.st, id) }

  advanceWatermark (now: number) { return advanceWatermark(this.st, now) }
  windowRows (after: number, upTo: number, statuses: Status[]) { return windowRows(this.st, after, upTo, statuses) }
}
