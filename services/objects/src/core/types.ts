import type { OwnFields } from '@content/api-schema'
import type { ObjectTypeName } from './object-types.js'

export type Status = 'on' | 'off' | 'draft'
export const STATUSES: readonly Status[] = ['on', 'off', 'draft']

/** Who is asking; user_id 0 with no groups is anonymous. */
export interface Caller {
  user_id: number
  groups: string[]
  /** one of the caller's groups has backend_auth (set by the auth service in the token) */
  may_write?: boolean
  /** the read asked for `status=draft` (decisions §16); honoured only for the drafts the caller may write */
  sees_drafts?: boolean
}

/** The one file of a media object (proto MediaFile); the bytes live in the poster service under `key`. */
export interface MediaFileRecord {
  /** lower-case hex SHA-256 of the bytes */
  key: string
  /** the original file name */
  name: string
  mime_type: string
  /** bytes */
  size: number
  /** images as displayed; 0 otherwise */
  width: number
  height: number
}

/** The stored columns of one object: its identity, its own fields (spec 2.3, OWN_FIELDS), bookkeeping and permissions. */
export interface ObjectRecord extends OwnFields {
  id: number
  object_type: ObjectTypeName
  nickname: string
  status: Status
  created: number
  modified: number
  user_created: number
  user_modified: number
  read_groups: string[]
  write_groups: string[]
  file: MediaFileRecord | null
}

/** A map's view of a geo tag (spec 2.3), named as the API names it in every layer. */
export interface GmapsLookats { zoom: number, mapType: string, latitude: number, longitude: number, range: number }

/** A stored view: written as it is; one stored before its field took the API's name (`map_type`) reads the same. */
export function storedGmaps (stored: (Partial<GmapsLookats> & { map_type?: string }) | null): GmapsLookats | null {
  if (stored === null) return null
  return { zoom: stored.zoom ?? 0, mapType: stored.mapType ?? stored.map_type ?? '', latitude: stored.latitude ?? 0, longitude: stored.longitude ?? 0, range: stored.range ?? 0 }
}

export interface GeoTagRecord {
  id: number
  object_id: number
  latitude: number
  longitude: number
  address: string
  title: string
  gmaps_lookats: GmapsLookats | null
}

export interface TagRecord { name: string, label: string }
export interface CategoryRecord { id: number, area_id: number | null, name: string, label: string }
export interface DateItemRecord { start_date: number | null, end_date: number | null, days: number[] }

/** Everything of an object that lives outside its own row. */
export interface ObjectDetails {
  languages: Record<string, Record<string, string>>
  custom_properties: Record<string, string>
  geo_tags: GeoTagRecord[]
  tags: TagRecord[]
  categories: CategoryRecord[]
  date_items: DateItemRecord[]
  parent_ids: number[]
}

export function emptyDetails (): ObjectDetails {
  return { languages: {}, custom_properties: {}, geo_tags: [], tags: [], categories: [], date_items: [], parent_ids: [] }
}

/**
 * Adds one stored translated field. The language's own entry only: a language is the client's key, and
 * `constructor` or `toString` already answer something on a plain object (a translation under
 * `constructor` once wrote its fields onto Object itself, and every read of its object failed).
 */
export function addTranslation (d: ObjectDetails, lang: string, field: string, value: string): void {
  const fields = Object.hasOwn(d.languages, lang) ? d.languages[lang] : undefined
  if (fields === undefined) d.languages[lang] = { [field]: value }
  else fields[field] = value
}

/** What a caller may see: statuses, the publication window instant (null = no window filter), groups. */
export interface Visibility {
  statuses: Status[]
  at: number | null
  groups: string[]
  /** drafts admitted beside `statuses` (decisions §16, status=draft by a writer); absent or null: none */
  drafts?: DraftReach | null
}

/** Which drafts a writer sees: every one (an administrator) or those whose write groups are empty or shared with `groups`. */
export interface DraftReach {
  everything: boolean
  groups: string[]
}

export interface ChildCounts {
  sections: number
  contents: number
}

/** A relation a write saves: `params` is JSON text of an object; absent values are null. */
export interface RelationItemWrite {
  related_id: number
  priority: number | null
  params: string | null
}

/** Which children a tree list shows. */
export type ChildScope = 'all' | 'sections' | 'contents'

export interface ListFilter {
  object_types: ObjectTypeName[]
  /** lower-cased search text; empty = none */
  query: string
}

export interface RelationMeta {
  priority: number | null
  params_json: string
}

/** The full read model of one object, as every read answers it. */
export interface ObjectView extends ObjectRecord, ObjectDetails {
  object_type_id: number
  authorized: boolean
  free_access: boolean
  /** `objects`: with `include` (decisions §15), the first related objects */
  relations: { name: string, count: number, objects?: ObjectView[] }[]
  children: { count: number, sections: number, contents: number } | null
  relation: RelationMeta | null
}

/** A relation row as a port answers it: the related object, its priority and the shared params. */
export interface RelatedRow {
  related_id: number
  priority: number | null
  params: string | null
}

/** What a relation write saved, and whether it made the pair. */
export interface SavedRelationRow extends RelatedRow {
  created: boolean
}

/** What a tree write saved, and whether it made the edge. */
export interface SavedChildRow {
  child_id: number
  priority: number
  created: boolean
}
