import type { ObjectRef } from '../../core/object-ref.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ObjectsReads, VocabularyPort } from '../../core/ports.js'
import type { ObjectRecord } from '../../core/types.js'
import { loadDetails } from './details.sqlite.js'
import { RECORD_SELECT, toRecord } from './record-row.sqlite.js'
import { IDS_LIST, amongIds, groupsColumn, idsJson, type Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

export function getObject (st: Statements, ref: ObjectRef): ObjectRecord | null {
  const row = 'id' in ref
    ? st.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = @id`, { id: ref.id })
    : st.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.nickname = @nickname`, { nickname: ref.nickname })
  return row ? toRecord(row) : null
}

export function listObjectsByIds (st: Statements, ids: number[]): ObjectRecord[] {
  if (ids.length === 0) return []
  const { among, params } = amongIds(ids)
  return st.rawAll(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id ${among}`, params).map(toRecord)
}

export function typesOf (st: Statements, ids: number[]): Map<number, ObjectTypeName> {
  const rows = st.all<{ id: number, object_type: ObjectTypeName }>(`SELECT id, object_type FROM objects WHERE id ${IDS_LIST}`, { ids: idsJson(ids) })
  return new Map(rows.map((r) => [r.id, r.object_type]))
}

export function nicknamesTaken (st: Statements, nicknames: string[]): string[] {
  if (nicknames.length === 0) return []
  // a trashed object keeps its nickname (decisions §16)
  return st.all<{ nickname: string }>(`SELECT nickname FROM objects WHERE nickname IN (SELECT value FROM json_each(@names))
    UNION ALL SELECT nickname FROM trash WHERE nickname IN (SELECT value FROM json_each(@names))`,
    { names: JSON.stringify(nicknames) }).map((r) => r.nickname)
}

export function windowDates (st: Statements, now: number): { starts: number[], ends: number[] } {
  const starts = st.all<{ d: number }>('SELECT MIN(start_date) AS d FROM objects WHERE start_date > @now', { now })
  const ends = st.all<{ d: number }>('SELECT MIN(end_date) AS d FROM objects WHERE end_date >= @now', { now })
  const values = (rows: { d: number | null }[]) => rows.flatMap((r) => (r.d === null ? [] : [r.d]))
  return { starts: values(starts), ends: values(ends) }
}

export function setPermissions (st: Statements, id: number, read: string[], write: string[]): boolean {
  const result = st.run('UPDATE objects SET read_groups = @read, write_groups = @write WHERE id = @id',
    { id, read: groupsColumn(read), write: groupsColumn(write) })
  return result.changes > 0
}

export function existingCategories (st: Statements, names: string[]): string[] {
  if (names.length === 0) return []
  return st.all<{ name: string }>('SELECT name FROM categories WHERE name IN (SELECT value FROM json_each(@names))',
    { names: JSON.stringify(names) }).map((r) => r.name)
}

export function objectsPort (st: Statements): ObjectsReads {
  return {
    get: (ref) => answer(() => getObject(st, ref)),
    idsAfter: (afterId, limit) => answer(() => st.all<{ id: number }>('SELECT id FROM objects WHERE id > @afterId ORDER BY id LIMIT @limit', { afterId, limit }).map((r) => r.id)),
    listByIds: (ids) => answer(() => listObjectsByIds(st, ids)),
    details: (ids) => answer(() => loadDetails(st, ids)),
    typesOf: (ids) => answer(() => typesOf(st, ids)),
    nicknamesTaken: (names) => answer(() => nicknamesTaken(st, names)),
    windowDates: (now) => answer(() => windowDates(st, now)),
  }
}

export function vocabularyPort (st: Statements): VocabularyPort {
  return { existingCategories: (names) => answer(() => existingCategories(st, names)) }
}
