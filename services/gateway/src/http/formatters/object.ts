import { traitsOf, type ContentObject as ObjectJson, type ObjectTypeName, type RelatedObject, type TrashedObject } from '@content/api-schema'
import type { v1 } from '@content/protos'
import { formatDate, formatOptionalDate } from './dates.js'
import { translated } from './translation.js'

type ContentObject = v1.ContentObject__Output

export interface FormatContext {
  /** origin + base path, e.g. https://api.example/v1 */
  baseUrl: string
  timeZone: string
  /** `?lang=`, canonical (decisions §14) */
  lang?: string
  /** `?fields=` (decisions §15): the top-level fields each object keeps beside `id` and `object_type` */
  fields?: readonly string[]
}

const text = (v: string | undefined | null) => v ?? null

/** params_json (a JSON object text; '' = null) → the object clients see. */
export function parseParams (json: string | undefined | null): Record<string, unknown> | null {
  if (!json) return null
  try {
    const value: unknown = JSON.parse(json)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null
  } catch {
    return null
  }
}

function languages (o: ContentObject): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {}
  for (const [lang, t] of Object.entries(o.languages ?? {})) out[lang] = { ...(t.fields ?? {}) }
  return out
}

function relations (o: ContentObject, ctx: FormatContext) {
  const out: ObjectJson['relations'] = {}
  for (const r of o.relations ?? []) {
    const url = `${ctx.baseUrl}/objects/${o.id}/relations/${r.name}`
    // included (decisions §15): its objects join it from the answer's flat list (withIncluded)
    out[r.name] = r.included ? { count: r.count, url, objects: [] } : { count: r.count, url }
  }
  return out
}

/** `fields`: the listed top-level fields, and always `id` and `object_type`. */
function keepFields (object: ObjectJson, fields: readonly string[]): ObjectJson {
  const kept: Record<string, unknown> = { id: object.id, object_type: object.object_type }
  for (const f of fields) if (f in object) kept[f] = object[f as keyof ObjectJson]
  return kept as ObjectJson
}

function children (o: ContentObject, ctx: FormatContext) {
  const c = o.children
  if (!c) return undefined
  const url = `${ctx.baseUrl}/objects/${o.id}`
  return {
    count: c.count, url: `${url}/children`,
    contents: { count: c.contents, url: `${url}/contents` },
    sections: { count: c.sections, url: `${url}/sections` },
  }
}

function geoTags (o: ContentObject) {
  return (o.geo_tags ?? []).map((g) => ({
    id: g.id, object_id: g.object_id, title: g.title, latitude: g.latitude, longitude: g.longitude, address: g.address,
    gmaps_lookats: {
      zoom: g.gmaps_lookats?.zoom ?? 0, mapType: g.gmaps_lookats?.mapType ?? '',
      latitude: g.gmaps_lookats?.latitude ?? 0, longitude: g.gmaps_lookats?.longitude ?? 0, range: g.gmaps_lookats?.range ?? 0,
    },
  }))
}

function dateItems (o: ContentObject, tz: string) {
  return (o.date_items ?? []).map((d) => ({
    start_date: formatOptionalDate(d.start_date, tz), end_date: formatOptionalDate(d.end_date, tz),
    // distinct and sorted when written (decisions §4)
    days: d.days ?? [],
  }))
}

/**
 * Decisions §12: a media object's file, `null` each when it has none; images add their size.
 * `uri` serves the original with the object's read rights.
 */
function mediaFields (o: ContentObject, ctx: FormatContext): Partial<ObjectJson> {
  const f = o.file
  const out: Partial<ObjectJson> = {
    uri: f ? `${ctx.baseUrl}/media/${o.id}/${encodeURIComponent(f.name)}` : null,
    name: f ? f.name : null,
    mime_type: f ? f.mime_type : null,
    file_size: f ? f.size : null,
  }
  if (traitsOf(o.object_type).sized) {
    out.width = f && f.width > 0 ? f.width : null
    out.height = f && f.height > 0 ? f.height : null
  }
  return out
}

/** Proto → spec 2.3 JSON, field by field; never a spread of the message. */
export function formatObject (o: ContentObject, ctx: FormatContext): ObjectJson {
  const tz = ctx.timeZone
  const out: ObjectJson = {
    // the objects service only knows the types of the catalogue
    id: o.id, object_type_id: o.object_type_id, object_type: o.object_type as ObjectTypeName,
    // the own fields (OWN_FIELDS) one by one: the answer's type lists each, so a new one cannot be left out
    title: text(o.title), description: text(o.description), subject: text(o.subject),
    abstract: text(o.abstract), body: text(o.body), note: text(o.note),
    nickname: o.nickname, lang: o.lang, rights: o.rights, license: o.license, creator: o.creator,
    publisher: o.publisher, comments: o.comments, valid: o.valid,
    start_date: formatOptionalDate(o.start_date, tz), end_date: formatOptionalDate(o.end_date, tz),
    publication_date: formatOptionalDate(o.publication_date, tz),
    created: formatDate(o.created, tz), modified: formatDate(o.modified, tz),
    authorized: o.authorized, free_access: o.free_access,
    languages: languages(o), relations: relations(o, ctx), custom_properties: { ...(o.custom_properties ?? {}) },
    geo_tags: geoTags(o),
    tags: (o.tags ?? []).map((t) => ({ label: t.label, name: t.name })),
    categories: (o.categories ?? []).map((c) => ({ id: c.id, area_id: c.area_id ?? null, label: c.label, name: c.name })),
  }
  const traits = traitsOf(o.object_type)
  if (traits.dateItems) out.date_items = dateItems(o, tz)
  if (traits.takesFile) Object.assign(out, mediaFields(o, ctx))
  // the objects service sends children counts of tree nodes only
  const kids = children(o, ctx)
  if (kids) out.children = kids
  const shown = ctx.lang === undefined ? out : translated(out, ctx.lang)
  return ctx.fields === undefined ? shown : keepFields(shown, ctx.fields)
}

/** An item of a relation list: the object plus `meta.relation = {priority, params}`. */
export function formatRelatedObject (o: ContentObject, ctx: FormatContext): RelatedObject {
  return {
    ...formatObject(o, ctx),
    meta: { relation: { priority: o.relation?.priority ?? null, params: parseParams(o.relation?.params_json) } },
  }
}

/** An item of the trash list: the object as it was plus `meta.trash = {deleted, user_id}` (decisions §16). */
export function formatTrashedObject (t: v1.TrashedObject__Output, ctx: FormatContext): TrashedObject {
  if (!t.object) throw new Error('a trash item without its object')
  return { ...formatObject(t.object, ctx), meta: { trash: { deleted: formatDate(t.deleted, ctx.timeZone), user_id: t.user_id } } }
}

/**
 * Puts the objects `include` added (decisions §15) into their holders' `relations.<name>.objects`, each
 * as a relation list shows it. `holder` counts `objects` first, then the included ones in order; a holder
 * whose `relations` `fields` left out shows none.
 */
export function withIncluded<T extends ObjectJson> (objects: T[], included: v1.IncludedObject__Output[] | undefined, ctx: FormatContext): T[] {
  if (!included || included.length === 0) return objects
  const holders: ObjectJson[] = [...objects]
  for (const entry of included) {
    const shown = formatRelatedObject(entry.object as ContentObject, ctx)
    holders.push(shown)
    holders[entry.holder]?.relations?.[entry.name]?.objects?.push(shown)
  }
  return objects
}
