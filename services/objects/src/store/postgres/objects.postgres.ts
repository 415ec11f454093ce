import type { ObjectRef } from '../../core/object-ref.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ObjectsPort, VocabularyPort } from '../../core/ports.js'
import type { RevisionsKeep } from '../../core/revisions.js'
import type { ObjectRecord } from '../../core/types.js'
import { permissionsSet } from '../../core/write-events.js'
import type { Db } from './db.postgres.js'
import { loadDetails } from './details.postgres.js'
import { recordOutcome } from './idempotency.postgres.js'
import { RECORD_SELECT, toRecord } from './record-row.postgres.js'
import { dropRevisions, recordRevision } from './revisions.postgres.js'
import { groupsColumn } from './rows.postgres.js'
import type { Transactions } from './transactions.postgres.js'
import { claimUpload } from './uploads.postgres.js'
import { deleteObject, insertObject, updateObject } from './writes.postgres.js'

/** `lock`: the row is locked until the transaction ends (a write's "before", read as no other writer can change it). */
export async function getObject (db: Db, ref: ObjectRef, lock = false): Promise<ObjectRecord | null> {
  const row = 'id' in ref
    ? await db.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = @id${lock ? ' FOR UPDATE' : ''}`, { id: ref.id })
    : await db.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.nickname = @nickname`, { nickname: ref.nickname })
  return row ? toRecord(row) : null
}

export async function listObjectsByIds (db: Db, ids: number[]): Promise<ObjectRecord[]> {
  if (ids.length === 0) return []
  return (await db.rawAll(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = ANY(@ids::bigint[])`, { ids })).map(toRecord)
}

async function typesOf (db: Db, ids: number[]): Promise<Map<number, ObjectTypeName>> {
  const rows = await db.rawAll<[number, ObjectTypeName]>('SELECT id, object_type FROM objects WHERE id = ANY(@ids::bigint[])', { ids })
  return new Map(rows)
}

/** Nicknames of live and trashed objects alike (decisions §16): the `nicknames` table holds both. */
export async function nicknamesTaken (db: Db, nicknames: string[]): Promise<string[]> {
  if (nicknames.length === 0) return []
  return (await db.rawAll<[string]>('SELECT nickname FROM nicknames WHERE nickname = ANY(@names::text[])', { names: nicknames })).map((r) => r[0])
}

async function windowDates (db: Db, now: number): Promise<{ starts: number[], ends: number[] }> {
  const row = await db.one<{ s: number | null, e: number | null }>(`SELECT (SELECT MIN(start_date) FROM objects WHERE start_date > @now) AS s,
    (SELECT MIN(end_date) FROM objects WHERE end_date >= @now) AS e`, { now })
  return { starts: row?.s == null ? [] : [row.s], ends: row?.e == null ? [] : [row.e] }
}

/**
 * The object writes as the SQLite store composes them (objects.sqlite.ts), each step a statement or a
 * few in the write's transaction.
 */
export function objectsPort (db: Db, tx: Transactions, keep: RevisionsKeep = null): ObjectsPort {
  return {
    get: (ref) => getObject(db, ref),
    listByIds: (ids) => listObjectsByIds(db, ids),
    details: (ids) => loadDetails(db, ids),
    typesOf: (ids) => typesOf(db, ids),
    nicknamesTaken: (names) => nicknamesTaken(db, names),
    windowDates: (now) => windowDates(db, now),
    setPermissions: (id, read, write) => tx.write(async (t) => {
      const changed = await t.db.run('UPDATE objects SET read_groups = @read, write_groups = @write WHERE id = @id',
        { id, read: groupsColumn(read), write: groupsColumn(write) }) > 0
      await t.record(permissionsSet(id, changed))
      return changed
    }),
    create: (input, now) => tx.write(async (t) => {
      // its links and extras leave its own fields as inserted: the revision takes the row the insert answered
      const inserted = await insertObject(t, input, now)
      const { id } = inserted
      if (keep !== 0) await recordRevision(t.db, id, null, inserted, now, input.user_id, keep)
      await claimUpload(t.db, input.claim)
      await recordOutcome(t.db, input.idempotency, { kind: 'object', id, created: true })
      return id
    }),
    update: (id, patch, now) => tx.write(async (t) => {
      // the row locked first: a concurrent update of the object waits, and its revision compares with this one's
      const before = await getObject(t.db, { id }, true)
      const updated = await updateObject(t, id, patch, now)
      if (updated) {
        if (keep !== 0) await recordRevision(t.db, id, before, await getObject(t.db, { id }), now, patch.user_id, keep)
        await claimUpload(t.db, patch.claim)
        await recordOutcome(t.db, patch.idempotency, { kind: 'object', id, created: false })
      }
      return updated
    }),
    remove: (id) => tx.write(async (t) => {
      await dropRevisions(t.db, id)
      return await deleteObject(t, id, true) ? 'removed' : 'absent'
    }),
  }
}

export function vocabularyPort (db: Db): VocabularyPort {
  return {
    existingCategories: async (names) => names.length === 0
      ? []
      : (await db.rawAll<[string]>('SELECT name FROM categories WHERE name = ANY(@names::text[])', { names })).map((r) => r[0]),
  }
}
