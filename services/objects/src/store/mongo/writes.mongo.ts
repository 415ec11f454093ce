import { OWN_FIELD_NAMES, OWN_FIELDS } from '@content/api-schema'
import { nicknameBase, uniqueNickname } from '../../core/nickname.js'
import type { ObjectExtras, WritableColumns } from '../../core/object-input.js'
import { SEARCHED_FIELDS, searchedTexts, trigramsOf } from '../../core/text-search.js'
import type { NewObject, ObjectChange } from '../../core/write-steps.js'
import { takeLocks, wholeLocks } from './link-locks.mongo.js'
import { SEARCHED_PROJECTION, type ObjectDoc, type Tx } from './schema.mongo.js'
import { rerootBelow } from './tree.mongo.js'

/** The fields a write sets: the own fields, and the file. */
const COLUMNS = [...OWN_FIELD_NAMES, 'file'] as const

function columnValues (columns: Partial<WritableColumns>): Partial<ObjectDoc> {
  const out: Record<string, unknown> = {}
  for (const key of COLUMNS) {
    if (!(key in columns)) continue
    out[key] = key !== 'file' && OWN_FIELDS[key].kind === 'flag' ? columns[key] === true : columns[key] ?? null
  }
  return out as Partial<ObjectDoc>
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The first free nickname for a title: one query reads every candidate `root` / `root-N` that is taken. */
async function generatedNickname (tx: Tx, title: string | null, fallback: string): Promise<string> {
  const base = nicknameBase(title)
  const root = base === '' ? fallback : base
  const pattern = { nickname: { $regex: `^${escapeRegex(root)}(-[0-9]+)?$` } }
  // one operation at a time in a transaction: the driver leaves parallel ones undefined
  const taken = await tx.c.objects.find(pattern, { projection: { nickname: 1 }, session: tx.session }).toArray()
  const trashed = await tx.c.trash.find(pattern, { projection: { nickname: 1 }, session: tx.session }).toArray()
  const names = new Set([...taken, ...trashed].map((d) => d.nickname))
  return uniqueNickname(base, fallback, (candidate) => names.has(candidate))
}

/** Inserts an object (nickname generated when absent) with its extras; `id` only for the publication. */
export async function insertObject (tx: Tx, write: NewObject, now: number, id?: number): Promise<number> {
  id ??= await tx.ids.take('objects')
  const nickname = write.nickname ?? await generatedNickname(tx, write.columns.title, `${write.object_type}-${id}`)
  const extras = await extrasFields(tx, write.extras)
  const doc: ObjectDoc = {
    _id: id, object_type: write.object_type, nickname, status: write.status,
    ...(columnValues(write.columns) as Pick<ObjectDoc, (typeof COLUMNS)[number]>),
    created: now, modified: now, user_created: write.user_id, user_modified: write.user_id,
    read_groups: write.read_groups, write_groups: write.write_groups,
    search_trigrams: trigramsOf(...searchedTexts(write.columns)),
    translations: [], custom_properties: [], geo_tags: [], date_items: [], tags: [], categories: [],
    ...extras,
  }
  await tx.c.objects.insertOne(doc, { session: tx.session })
  tx.created.add(id)
  return id
}

/** Applies a change; false when the object does not exist. */
export async function updateObject (tx: Tx, id: number, patch: ObjectChange, now: number): Promise<boolean> {
  const set: Partial<ObjectDoc> = { ...columnValues(patch.columns), modified: now, user_modified: patch.user_id }
  if (patch.nickname !== undefined) set.nickname = patch.nickname
  if (patch.status !== undefined) set.status = patch.status
  const result = await tx.c.objects.updateOne({ _id: id }, { $set: set }, { session: tx.session })
  if (result.matchedCount === 0) return false
  if (SEARCHED_FIELDS.some((field) => field in patch.columns)) await refreshTrigrams(tx, id)
  const extras = await extrasFields(tx, patch.extras)
  if (Object.keys(extras).length > 0) await tx.c.objects.updateOne({ _id: id }, { $set: extras }, { session: tx.session })
  return true
}

/** The search trigrams again from the texts as they now are (a patch may change one field of three). */
async function refreshTrigrams (tx: Tx, id: number): Promise<void> {
  const doc = await tx.c.objects.findOne({ _id: id }, { projection: SEARCHED_PROJECTION, session: tx.session })
  if (doc === null) return
  await tx.c.objects.updateOne({ _id: id }, { $set: { search_trigrams: trigramsOf(...searchedTexts(doc)) } }, { session: tx.session })
}

/** Removes an object, its tree edges (re-rooting what sat below it) and its relations both ways. */
export async function deleteObject (tx: Tx, id: number): Promise<boolean> {
  const { c, session } = tx
  // a concurrent write linking to it meets these (link-locks.mongo.ts)
  await takeLocks(tx, wholeLocks(id, tx.created))
  const children = await c.tree.find({ parent_id: id }, { projection: { object_id: 1 }, session }).toArray()
  await c.tree.deleteMany({ $or: [{ object_id: id }, { parent_id: id }] }, { session })
  for (const child of children) await rerootBelow(tx, child.object_id)
  await c.relations.deleteMany({ $or: [{ object_id: id }, { related_id: id }] }, { session })
  return (await c.objects.deleteOne({ _id: id }, { session })).deletedCount > 0
}

/** The embedded fields for each part of the extras that is present (an absent part is left as it is). */
async function extrasFields (tx: Tx, extras: ObjectExtras): Promise<Partial<ObjectDoc>> {
  const out: Partial<ObjectDoc> = {}
  if (extras.languages) {
    out.translations = Object.entries(extras.languages).flatMap(([lang, fields]) =>
      Object.entries(fields).map(([field, value]) => ({ lang, field, value })))
  }
  if (extras.custom_properties) out.custom_properties = Object.entries(extras.custom_properties).map(([name, value]) => ({ name, value }))
  if (extras.geo_tags) {
    const first = extras.geo_tags.length === 0 ? 0 : await tx.ids.take('geo_tags', extras.geo_tags.length)
    out.geo_tags = extras.geo_tags.map((g, i) => ({
      id: first + i, latitude: g.latitude, longitude: g.longitude, address: g.address, title: g.title, gmaps_lookats: g.gmaps_lookats,
    }))
  }
  if (extras.date_items) out.date_items = extras.date_items.map((d) => ({ start_date: d.start_date, end_date: d.end_date, days: d.days }))
  if (extras.tags) out.tags = await linkTags(tx, extras.tags)
  if (extras.categories) out.categories = await linkCategories(tx, extras.categories)
  return out
}

/** A tag that does not exist yet is created with its name as label. */
async function linkTags (tx: Tx, names: string[]): Promise<string[]> {
  const unique = [...new Set(names)]
  if (unique.length > 0) {
    await tx.c.tags.bulkWrite(unique.map((name) => ({
      updateOne: { filter: { _id: name }, update: { $setOnInsert: { label: name } }, upsert: true },
    })), { session: tx.session, ordered: false })
  }
  return unique
}

/** Categories must exist; the caller checked, this keeps the write honest if one vanished meanwhile. */
async function linkCategories (tx: Tx, names: string[]): Promise<string[]> {
  const unique = [...new Set(names)]
  if (unique.length === 0) return unique
  const found = new Set((await tx.c.categories.find({ _id: { $in: unique } }, { projection: { _id: 1 }, session: tx.session }).toArray()).map((k) => k._id))
  const missing = unique.find((name) => !found.has(name))
  if (missing !== undefined) throw new Error(`unknown category "${missing}"`)
  return unique
}

/** Creates a vocabulary entry or updates its label (fixtures). */
export async function upsertVocabulary (tx: Tx, kind: 'tags' | 'categories', item: { name: string, label: string }): Promise<void> {
  if (kind === 'tags') {
    await tx.c.tags.updateOne({ _id: item.name }, { $set: { label: item.label } }, { upsert: true, session: tx.session })
    return
  }
  const updated = await tx.c.categories.updateOne({ _id: item.name }, { $set: { label: item.label } }, { session: tx.session })
  if (updated.matchedCount > 0) return
  await tx.c.categories.insertOne({ _id: item.name, id: await tx.ids.take('categories'), label: item.label, area_id: null }, { session: tx.session })
}
