import { OWN_FIELD_NAMES, OWN_FIELDS, type OwnFields } from '@content/api-schema'
import type { Document } from 'mongodb'
import { present } from '@content/platform'
import { storedFile } from '../../core/media-file.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import { SEARCHED_FIELDS, indexable, searchNeedle, trigramsOf } from '../../core/text-search.js'
import type { DraftReach, ListFilter, ObjectRecord, Status, Visibility } from '../../core/types.js'
import { readsEverything } from '../../core/visibility.js'
import type { IdPage } from '../../core/ports.js'
import type { ObjectDoc } from './schema.mongo.js'

/** The fields of an object's own record: the embedded details stay on the server. */
export const RECORD_PROJECTION = {
  translations: 0, custom_properties: 0, geo_tags: 0, date_items: 0, tags: 0, categories: 0, search_trigrams: 0,
} as const

export type RecordDoc = Omit<ObjectDoc, keyof typeof RECORD_PROJECTION>

/** A document's record; an own field it lacks (stored before the field existed) reads as the field's default. */
export function toRecord (doc: RecordDoc): ObjectRecord {
  const own = Object.fromEntries(OWN_FIELD_NAMES.map((f) => [f, doc[f] ?? OWN_FIELDS[f].default])) as OwnFields
  return {
    id: doc._id,
    object_type: doc.object_type as ObjectTypeName,
    nickname: doc.nickname,
    status: doc.status as Status,
    ...own,
    created: doc.created,
    modified: doc.modified,
    user_created: doc.user_created,
    user_modified: doc.user_modified,
    read_groups: doc.read_groups ?? [],
    write_groups: doc.write_groups ?? [],
    file: storedFile(doc.file),
  }
}

/** The joined object of a tree or relation row, as the list pipelines name it. */
export const JOINED = 'o'

/** Joins each row to its object (`o`); rows whose object is gone drop out. */
export function joinObject (localField: string): Document[] {
  return [
    { $lookup: { from: 'objects', localField, foreignField: '_id', as: JOINED } },
    { $unwind: `$${JOINED}` },
  ]
}

/** Every condition at once; empty ones (`{}`) are left out. */
export function allOf (...conditions: Document[]): Document {
  const and = conditions.filter((c) => Object.keys(c).length > 0)
  return and.length === 0 ? {} : and.length === 1 ? present(and[0], 'the only condition') : { $and: and }
}

/** Objects a visibility admits: status, publication window, read groups. `prefix` = where the object sits. */
export function visibleMatch (vis: Visibility, prefix = `${JOINED}.`): Document {
  const f = (name: string) => `${prefix}${name}`
  const published = { [f('status')]: { $in: vis.statuses } }
  const and: Document[] = [vis.drafts ? { $or: [published, draftsMatch(vis.drafts, f)] } : published]
  if (!readsEverything(vis.groups)) and.push({ $or: [{ [f('read_groups')]: { $size: 0 } }, { [f('read_groups')]: { $in: vis.groups } }] })
  if (vis.at !== null) {
    and.push(
      { $or: [{ [f('start_date')]: null }, { [f('start_date')]: { $lte: vis.at } }] },
      { $or: [{ [f('end_date')]: null }, { [f('end_date')]: { $gte: vis.at } }] },
    )
  }
  return allOf(...and)
}

/** The drafts a writer asked for (decisions §16): every one, or those whose write groups are empty or shared. */
function draftsMatch (drafts: DraftReach, f: (name: string) => string): Document {
  if (drafts.everything) return { [f('status')]: 'draft' }
  return { [f('status')]: 'draft', $or: [{ [f('write_groups')]: { $size: 0 } }, { [f('write_groups')]: { $in: drafts.groups } }] }
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Objects a list filter admits: types, and a case-insensitive substring of a searched field
 * (SEARCHED_FIELDS). A needle of 3+ characters first needs all its trigrams among the object's (indexed, a
 * superset of the matches); the $regex stays the exact check. Shorter needles only have the $regex.
 */
export function filterMatch (filter: ListFilter, prefix = `${JOINED}.`): Document {
  const and: Document[] = []
  if (filter.object_types.length > 0) and.push({ [`${prefix}object_type`]: { $in: filter.object_types } })
  const needle = searchNeedle(filter.query)
  if (needle !== null) {
    if (indexable(needle)) and.push({ [`${prefix}search_trigrams`]: { $all: trigramsOf(needle) } })
    const regex = { $regex: escapeRegex(filter.query), $options: 'i' }
    and.push({ $or: SEARCHED_FIELDS.map((field) => ({ [`${prefix}${field}`]: regex })) })
  }
  return allOf(...and)
}

/**
 * One page and the total over every page, in one round trip. The rows reach this stage already in
 * list order; `idField` names the id to answer.
 */
export function pageStage (idField: string, offset: number, limit: number): Document {
  return {
    $facet: {
      page: [{ $skip: offset }, { $limit: Math.max(1, limit) }, { $project: { _id: 0, id: `$${idField}` } }],
      total: [{ $count: 'n' }],
    },
  }
}

export interface PageResult { page: { id: number }[], total: { n: number }[] }

export function toIdPage (result: PageResult | undefined, limit: number): IdPage {
  return { ids: (result?.page ?? []).slice(0, Math.max(0, limit)).map((r) => r.id), total: result?.total[0]?.n ?? 0 }
}
