import type { ObjectRef } from '../../core/object-ref.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ObjectsReads, VocabularyPort } from '../../core/ports.js'
import { addTranslation, emptyDetails, storedGmaps, type ObjectDetails, type ObjectRecord } from '../../core/types.js'
import { RECORD_PROJECTION, toRecord } from './rows.mongo.js'
import type { CategoryDoc, Collections, ObjectDoc, TagDoc, Tx } from './schema.mongo.js'

export async function getObject (c: Collections, ref: ObjectRef): Promise<ObjectRecord | null> {
  const filter = 'id' in ref ? { _id: ref.id } : { nickname: ref.nickname }
  const doc = await c.objects.findOne(filter, { projection: RECORD_PROJECTION })
  return doc ? toRecord(doc) : null
}

export async function listObjectsByIds (c: Collections, ids: number[]): Promise<ObjectRecord[]> {
  if (ids.length === 0) return []
  return (await c.objects.find({ _id: { $in: ids } }, { projection: RECORD_PROJECTION }).toArray()).map(toRecord)
}

export async function typesOf (c: Collections, ids: number[]): Promise<Map<number, ObjectTypeName>> {
  if (ids.length === 0) return new Map()
  const docs = await c.objects.find({ _id: { $in: ids } }, { projection: { object_type: 1 } }).toArray()
  return new Map(docs.map((d) => [d._id, d.object_type as ObjectTypeName]))
}

export async function nicknamesTaken (c: Collections, nicknames: string[]): Promise<string[]> {
  if (nicknames.length === 0) return []
  // a trashed object keeps its nickname (decisions §16)
  const [live, trashed] = await Promise.all([
    c.objects.find({ nickname: { $in: nicknames } }, { projection: { nickname: 1 } }).toArray(),
    c.trash.find({ nickname: { $in: nicknames } }, { projection: { nickname: 1 } }).toArray(),
  ])
  return [...live, ...trashed].map((d) => d.nickname)
}

/** The earliest start after `now` and the earliest end at or after `now` (each one index range). */
export async function windowDates (c: Collections, now: number): Promise<{ starts: number[], ends: number[] }> {
  const [start] = await c.objects.find({ start_date: { $gt: now } }, { projection: { start_date: 1 } }).sort({ start_date: 1 }).limit(1).toArray()
  const [end] = await c.objects.find({ end_date: { $gte: now } }, { projection: { end_date: 1 } }).sort({ end_date: 1 }).limit(1).toArray()
  return {
    starts: typeof start?.start_date === 'number' ? [start.start_date] : [],
    ends: typeof end?.end_date === 'number' ? [end.end_date] : [],
  }
}

export async function setPermissions (tx: Tx, id: number, read: string[], write: string[]): Promise<boolean> {
  const result = await tx.c.objects.updateOne({ _id: id }, { $set: { read_groups: read, write_groups: write } }, { session: tx.session })
  return result.matchedCount > 0
}

const DETAILS_PROJECTION = { translations: 1, custom_properties: 1, geo_tags: 1, date_items: 1, tags: 1, categories: 1 } as const
type DetailsDoc = Pick<ObjectDoc, '_id' | keyof typeof DETAILS_PROJECTION>

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Nulls first, like SQLite's ORDER BY start_date. */
const byStart = (a: { start_date: number | null }, b: { start_date: number | null }) =>
  (a.start_date ?? -Infinity) - (b.start_date ?? -Infinity)

/**
 * Everything outside the object records, for many objects at once: four queries whatever the count, at
 * once outside a transaction, one after another inside `tx` (the driver leaves parallel ones undefined).
 */
export async function loadDetails (c: Collections, ids: number[], tx?: Tx): Promise<Map<number, ObjectDetails>> {
  const out = new Map<number, ObjectDetails>(ids.map((id) => [id, emptyDetails()]))
  if (ids.length === 0) return out
  const session = tx?.session
  const docs = await c.objects.find({ _id: { $in: ids } }, { projection: DETAILS_PROJECTION, session }).toArray() as DetailsDoc[]
  const tagNames = [...new Set(docs.flatMap((d) => d.tags ?? []))]
  const categoryNames = [...new Set(docs.flatMap((d) => d.categories ?? []))]
  const reads = [
    () => (tagNames.length === 0 ? [] : c.tags.find({ _id: { $in: tagNames } }, { session }).toArray()),
    () => (categoryNames.length === 0 ? [] : c.categories.find({ _id: { $in: categoryNames } }, { session }).toArray()),
    () => c.tree.find({ object_id: { $in: ids } }, { projection: { parent_id: 1, object_id: 1 }, session }).sort({ seq: 1 }).toArray(),
  ] as const
  const [tags, categories, edges] = tx === undefined
    ? await Promise.all([reads[0](), reads[1](), reads[2]()])
    : [await reads[0](), await reads[1](), await reads[2]()]
  const vocabulary: Vocabulary = { tags: new Map(tags.map((t) => [t._id, t])), categories: new Map(categories.map((k) => [k._id, k])) }
  for (const doc of docs) {
    const d = out.get(doc._id)
    if (d) fillDetails(d, doc, vocabulary)
  }
  for (const e of edges) out.get(e.object_id)?.parent_ids.push(e.parent_id)
  return out
}

interface Vocabulary { tags: Map<string, TagDoc>, categories: Map<string, CategoryDoc> }

/** The embedded parts in the order the SQLite adapter answers them. */
function fillDetails (d: ObjectDetails, doc: DetailsDoc, vocabulary: Vocabulary): void {
  for (const t of [...(doc.translations ?? [])].sort((a, b) => byText(a.lang, b.lang) || byText(a.field, b.field))) {
    addTranslation(d, t.lang, t.field, t.value)
  }
  for (const p of [...(doc.custom_properties ?? [])].sort((a, b) => byText(a.name, b.name))) d.custom_properties[p.name] = p.value
  d.geo_tags = [...(doc.geo_tags ?? [])].sort((a, b) => a.id - b.id).map((g) => ({ ...g, gmaps_lookats: storedGmaps(g.gmaps_lookats), object_id: doc._id }))
  d.date_items = [...(doc.date_items ?? [])].sort(byStart).map((i) => ({ start_date: i.start_date, end_date: i.end_date, days: i.days }))
  d.tags = (doc.tags ?? []).flatMap((name) => {
    const t = vocabulary.tags.get(name)
    return t ? [{ name, label: t.label }] : []
  }).sort((a, b) => byText(a.name, b.name))
  d.categories = (doc.categories ?? []).flatMap((name) => {
    const k = vocabulary.categories.get(name)
    return k ? [{ id: k.id, area_id: k.area_id ?? null, name, label: k.label }] : []
  }).sort((a, b) => byText(a.name, b.name))
}

export async function existingCategories (c: Collections, names: string[]): Promise<string[]> {
  if (names.length === 0) return []
  return (await c.categories.find({ _id: { $in: names } }, { projection: { _id: 1 } }).toArray()).map((k) => k._id)
}

export function objectsPort (c: Collections): ObjectsReads {
  return {
    get: (ref) => getObject(c, ref),
    idsAfter: async (afterId, limit) => (await c.objects.find({ _id: { $gt: afterId } }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(limit).toArray()).map((d) => d._id),
    listByIds: (ids) => listObjectsByIds(c, ids),
    details: (ids) => loadDetails(c, ids),
    typesOf: (ids) => typesOf(c, ids),
    nicknamesTaken: (names) => nicknamesTaken(c, names),
    windowDates: (now) => windowDates(c, now),
  }
}

export function vocabularyPort (c: Collections): VocabularyPort {
  return { existingCategories: (names) => existingCategories(c, names) }
}
