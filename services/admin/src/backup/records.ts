import { OWN_FIELDS, OWN_FIELD_NAMES } from '@content/api-schema'
import type { v1 } from '@content/protos'
import type { ObjectRecord } from './format.js'

/** The publication: the one object an import updates rather than creates (decisions §4). */
export const PUBLICATION_ID = 1

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString())

/** The own fields of spec 2.3 as a fixtures file writes them (dates ISO 8601, absent texts null). */
function ownFields (o: v1.ContentObject__Output): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  for (const field of OWN_FIELD_NAMES) {
    const value = (o as unknown as Record<string, unknown>)[field]
    fields[field] = OWN_FIELDS[field].kind === 'date' ? iso(value as number | undefined) : value ?? null
  }
  return fields
}

const params = (json: string): Record<string, unknown> | null => (json === '' ? null : JSON.parse(json) as Record<string, unknown>)

/** An exported object (proto ExportedObject) as its export line holds it; `sha256` of its file, when it has one. */
export function objectRecordOf (e: v1.ExportedObject__Output): ObjectRecord {
  const o = e.object as v1.ContentObject__Output
  return {
    id: Number(o.id),
    object_type: o.object_type,
    nickname: o.nickname,
    status: o.status as ObjectRecord['status'],
    permissions: { read: e.read_groups, write: e.write_groups },
    ...ownFields(o),
    languages: Object.fromEntries(Object.entries(o.languages).map(([lang, t]) => [lang, t.fields])),
    custom_properties: o.custom_properties,
    geo_tags: o.geo_tags.map((g) => ({ title: g.title, address: g.address, latitude: g.latitude, longitude: g.longitude, gmaps_lookats: g.gmaps_lookats ?? null })),
    tags: o.tags.map((t) => t.name),
    categories: o.categories.map((c) => c.name),
    date_items: o.date_items.map((d) => ({ start_date: iso(d.start_date), end_date: iso(d.end_date), days: d.days })),
    parents: e.parents.map((p) => ({ id: Number(p.parent_id), priority: p.priority })),
    relations: e.relations.map((r) => ({ name: r.name, related: Number(r.related_id), priority: r.priority ?? null, params: params(r.params_json) })),
    file: o.file ? { name: o.file.name, mime_type: o.file.mime_type, size: Number(o.file.size), sha256: o.file.key } : null,
  }
}

/** The fields a write takes from an object line: everything but what the import sets by other means. */
export function writableFields (record: ObjectRecord): Record<string, unknown> {
  const { id: _id, status: _status, permissions: _permissions, parents: _parents, relations: _relations, file: _file, object_type: _type, ...fields } = record
  return fields
}

/**
 * The object as a fixtures object (decisions §11) of one import batch: its ref is its id in the file; a
 * parent made by an earlier batch is named by its new id, one of this batch by its ref. Relations come later,
 * once every object exists; so does each placement's priority.
 */
export function fixtureObjectOf (record: ObjectRecord, parentTarget: (id: number) => string | number, file: v1.MediaFile__Output | null): Record<string, unknown> {
  return {
    ...writableFields(record),
    ref: String(record.id),
    object_type: record.object_type,
    status: record.status,
    permissions: record.permissions,
    parents: record.parents.map((p) => parentTarget(p.id)),
    ...(file ? { file } : {}),
  }
}
