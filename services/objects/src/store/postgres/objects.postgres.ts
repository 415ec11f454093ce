import type { AccessColumns } from '../../core/change-events.js'
import type { ObjectRef } from '../../core/object-ref.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ObjectsReads, VocabularyPort } from '../../core/ports.js'
import type { ObjectRecord } from '../../core/types.js'
import type { Db } from './db.postgres.js'
import { loadDetails } from './details.postgres.js'
import { RECORD_SELECT, toRecord } from './record-row.postgres.js'
import { groupsColumn } from './rows.postgres.js'

/** An object's access columns (undefined: no such object); `lock` as getObject's. */
export const accessColumns = (db: Db, id: number, lock = false): Promise<AccessColumns | undefined> =>
  db.one<AccessColumns>(`SELECT status, read_groups, write_groups, start_date, end_date FROM objects WHERE id = @id${lock ? ' FOR NO KEY UPDATE' : ''}`, { id })

/** `lock`: the row is locked until the transaction ends (read by a write, as no other writer can change it meanwhile). */
export async function getObject (db: Db, ref: ObjectRef, lock = false): Promise<ObjectRecord | null> {
  const row = 'id' in ref
    ? await db.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = @id${lock ? ' FOR NO KEY UPDATE' : ''}`, { id: ref.id })
    : await db.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.nickname = @nickname`, { nickname: ref.nickname })
  return row ? toRecord(row) : null
}

/**
 * One id is compared at once: with a list, PostgreSQL plans the statement again at every run (a generic
 * plan counts on more ids than one and never looks as cheap), and a create's answer or a read alone in
 * its turn asks for one object (loadtest/README.md, "One id, no list").
 */
export async function listObjectsByIds (db: Db, ids: number[]): Promise<ObjectRecord[]> {
  if (ids.length === 0) return []
  const rows = ids.length === 1
    ? await db.rawAll(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = @id`, { id: ids[0] })
    : await db.rawAll(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = ANY(@ids::bigint[])`, { ids })
  return rows.map(toRecord)
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

export function objectsReads (db: Db): ObjectsReads {
  return {
    get: (ref) => getObject(db, ref),
    idsAfter: async (afterId, limit) => (await db.rawAll<[number]>('SELECT id FROM objects WHERE id > @afterId ORDER BY id LIMIT @limit', { afterId, limit })).map((r) => Number(r[0])),
    listByIds: (ids) => listObjectsByIds(db, ids),
    details: (ids) => loadDetails(db, ids),
    typesOf: (ids) => typesOf(db, ids),
    nicknamesTaken: (names) => nicknamesTaken(db, names),
    windowDates: (now) => windowDates(db, now),
  }
}

export async function setPermissions (db: Db, id: number, read: string[], write: string[]): Promise<boolean> {
  return await db.run('UPDATE objects SET read_groups = @read, write_groups = @write WHERE id = @id', { id, read: groupsColumn(read), write: groupsColumn(write) }) > 0
}

export function vocabularyPort (db: Db): VocabularyPort {
  return {
    existingCategories: async (names) => names.length === 0
      ? []
      : (await db.rawAll<[string]>('SELECT name FROM categories WHERE name = ANY(@names::text[])', { names })).map((r) => r[0]),
  }
}
