import { present } from '@content/platform'
import type { ObjectRef } from '../../core/object-ref.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import { emptyDetails, type ObjectDetails, type ObjectRecord } from '../../core/types.js'
import { RECORD_SELECT, toRecord } from './record-row.sqlite.js'
import { groupsColumn, idsJson, type Statements } from './rows.sqlite.js'

const IN_IDS = 'IN (SELECT value FROM json_each(@ids))'

export function getObject (st: Statements, ref: ObjectRef): ObjectRecord | null {
  const row = 'id' in ref
    ? st.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id = @id`, { id: ref.id })
    : st.rawOne(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.nickname = @nickname`, { nickname: ref.nickname })
  return row ? toRecord(row) : null
}

export function listObjectsByIds (st: Statements, ids: number[]): ObjectRecord[] {
  if (ids.length === 0) return []
  return st.rawAll(`SELECT ${RECORD_SELECT} FROM objects o WHERE o.id ${IN_IDS}`, { ids: idsJson(ids) }).map(toRecord)
}

export function typesOf (st: Statements, ids: number[]): Map<number, ObjectTypeName> {
  const rows = st.all<{ id: number, object_type: ObjectTypeName }>(`SELECT id, object_type FROM objects WHERE id ${IN_IDS}`, { ids: idsJson(ids) })
  return new Map(rows.map((r) => [r.id, r.object_type]))
}

export function nicknamesTaken (st: Statements, nicknames: string[]): string[] {
  if (nicknames.length === 0) return []
  return st.all<{ nickname: string }>('SELECT nickname FROM objects WHERE nickname IN (SELECT value FROM json_each(@names))',
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

/** Everything outside the object rows, for many objects at once: one query per part (rows as tuples: cheaper). */
export function loadDetails (st: Statements, ids: number[]): Map<number, ObjectDetails> {
  const out = new Map<number, ObjectDetails>(ids.map((id) => [id, emptyDetails()]))
  if (ids.length === 0) return out
  const p = { ids: idsJson(ids) }
  const of = (id: number) => present(out.get(id), `the details of object ${id}`)
  for (const [id, lang, field, value] of st.rawAll<[number, string, string, string]>(
    `SELECT object_id, lang, field, value FROM translations WHERE object_id ${IN_IDS} ORDER BY lang, field`, p)) {
    const languages = of(id).languages
    const fields = languages[lang] ?? {}
    languages[lang] = fields
    fields[field] = value
  }
  for (const [id, name, value] of st.rawAll<[number, string, string]>(
    `SELECT object_id, name, value FROM custom_properties WHERE object_id ${IN_IDS} ORDER BY name`, p)) {
    of(id).custom_properties[name] = value
  }
  loadGeoTags(st, p, of)
  loadVocabularies(st, p, of)
  for (const [id, start, end, days] of st.rawAll<[number, number | null, number | null, string]>(
    `SELECT object_id, start_date, end_date, days FROM date_items WHERE object_id ${IN_IDS} ORDER BY start_date, id`, p)) {
    of(id).date_items.push({ start_date: start, end_date: end, days: JSON.parse(days) as number[] })
  }
  for (const [id, parentId] of st.rawAll<[number, number]>(`SELECT object_id, parent_id FROM tree WHERE object_id ${IN_IDS} ORDER BY seq`, p)) {
    of(id).parent_ids.push(parentId)
  }
  return out
}

type DetailsOf = (id: number) => ObjectDetails

function loadGeoTags (st: Statements, p: { ids: string }, of: DetailsOf): void {
  for (const r of st.all<{ id: number, object_id: number, latitude: number, longitude: number, address: string, title: string, gmaps_lookats: string | null }>(
    `SELECT * FROM geo_tags WHERE object_id ${IN_IDS} ORDER BY id`, p)) {
    of(r.object_id).geo_tags.push({ ...r, gmaps_lookats: r.gmaps_lookats === null ? null : JSON.parse(r.gmaps_lookats) })
  }
}

function loadVocabularies (st: Statements, p: { ids: string }, of: DetailsOf): void {
  for (const [id, name, label] of st.rawAll<[number, string, string]>(
    `SELECT ot.object_id, t.name, t.label FROM object_tags ot JOIN tags t ON t.id = ot.tag_id
     WHERE ot.object_id ${IN_IDS} ORDER BY t.name`, p)) {
    of(id).tags.push({ name, label })
  }
  for (const [id, categoryId, areaId, name, label] of st.rawAll<[number, number, number | null, string, string]>(
    `SELECT oc.object_id, c.id, c.area_id, c.name, c.label FROM object_categories oc JOIN categories c ON c.id = oc.category_id
     WHERE oc.object_id ${IN_IDS} ORDER BY c.name`, p)) {
    of(id).categories.push({ id: categoryId, area_id: areaId, name, label })
  }
}

export function existingCategories (st: Statements, names: string[]): string[] {
  if (names.length === 0) return []
  return st.all<{ name: string }>('SELECT name FROM categories WHERE name IN (SELECT value FROM json_each(@names))',
    { names: JSON.stringify(names) }).map((r) => r.name)
}
