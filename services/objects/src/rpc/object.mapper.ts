import type { OwnFieldName } from '@content/api-schema'
import type { v1 } from '@content/protos'
import type { MediaFileRecord, ObjectView } from '../core/types.js'
import type { Paging } from '../core/paging.js'

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value)

/**
 * Read model → proto message, field by field (never spread: the proto shape is the contract, and one
 * shape keeps it fast). The message's own fields are checked against OWN_FIELDS: a new one cannot be
 * left out here.
 */
export function toContentObject (v: ObjectView): v1.ContentObject {
  return {
    id: v.id, object_type: v.object_type, object_type_id: v.object_type_id,
    title: opt(v.title), description: opt(v.description), subject: opt(v.subject),
    abstract: opt(v.abstract), body: opt(v.body), note: opt(v.note),
    nickname: v.nickname, lang: v.lang, rights: v.rights, license: v.license, creator: v.creator,
    publisher: v.publisher, comments: v.comments, valid: v.valid,
    start_date: opt(v.start_date), end_date: opt(v.end_date), publication_date: opt(v.publication_date),
    created: v.created, modified: v.modified, status: v.status,
    authorized: v.authorized, free_access: v.free_access,
    languages: Object.fromEntries(Object.entries(v.languages).map(([lang, fields]) => [lang, { fields }])),
    // the plain relations are already their wire shape; included ones are marked (their objects: includedOf)
    relations: v.relations.some((r) => r.objects !== undefined) ? v.relations.map(markIncluded) : v.relations as v1.RelationCount[],
    custom_properties: v.custom_properties,
    geo_tags: v.geo_tags.map((g) => ({
      id: g.id, object_id: g.object_id, latitude: g.latitude, longitude: g.longitude, address: g.address, title: g.title,
      gmaps_lookats: g.gmaps_lookats ?? undefined,
    })),
    tags: v.tags.map((t) => ({ label: t.label, name: t.name })),
    categories: v.categories.map((c) => ({ id: c.id, area_id: opt(c.area_id), label: c.label, name: c.name })),
    date_items: v.date_items.map((d) => ({ start_date: opt(d.start_date), end_date: opt(d.end_date), days: d.days })),
    children: v.children ?? undefined,
    user_created: v.user_created, user_modified: v.user_modified,
    parent_ids: v.parent_ids,
    relation: v.relation === null ? undefined : { priority: opt(v.relation.priority), params_json: v.relation.params_json },
    file: v.file === null ? undefined : toMediaFile(v.file),
  } satisfies v1.ContentObject & { [F in OwnFieldName]: unknown }
}

function markIncluded (r: ObjectView['relations'][number]): v1.RelationCount {
  return { name: r.name, count: r.count, included: r.objects !== undefined }
}

/**
 * The objects `include` added below `views`, flat and in order (proto IncludedObject): each names the
 * position of its holder, the views first, then the included ones as they come.
 */
export function includedOf (views: ObjectView[]): v1.IncludedObject[] {
  const out: v1.IncludedObject[] = []
  const visit = (view: ObjectView, holder: number) => {
    for (const r of view.relations) {
      for (const item of r.objects ?? []) {
        const position = views.length + out.length
        out.push({ holder, name: r.name, object: toContentObject(item) })
        visit(item, position)
      }
    }
  }
  for (const [i, view] of views.entries()) visit(view, i)
  return out
}

export function toMediaFile (f: MediaFileRecord): v1.MediaFile {
  return { key: f.key, name: f.name, mime_type: f.mime_type, size: f.size, width: f.width, height: f.height }
}

export function toObjectList (list: { objects: ObjectView[], paging: Paging & { next_cursor?: string, uncounted?: boolean } }): v1.ObjectList {
  return { objects: list.objects.map(toContentObject), paging: list.paging, included: includedOf(list.objects) }
}

/** The caller of a read, with its wish to see drafts (status=draft, decisions §16). */
export function readerOf (caller: Parameters<typeof callerOf>[0], query: { drafts?: boolean } | null | undefined) {
  return { ...callerOf(caller), sees_drafts: query?.drafts === true }
}

export function callerOf (caller: { user_id?: number, groups?: string[], may_write?: boolean } | null | undefined) {
  return { user_id: caller?.user_id ?? 0, groups: caller?.groups ?? [], may_write: caller?.may_write ?? false }
}
