import { isTreeNode, objectTypeId } from './object-types.js'
import { isProtected } from './visibility.js'
import { emptyDetails, type ObjectDetails, type ObjectRecord, type ObjectView, type RelationMeta } from './types.js'

export interface ViewParts {
  details: Map<number, ObjectDetails>
  relationCounts: Map<number, Map<string, number>>
  childCounts: Map<number, { sections: number, contents: number }>
  /** relation meta per related id, on items of a relation list */
  relationMeta?: Map<number, RelationMeta>
}

/** Builds the read model of each record, keeping the records' order. */
export function buildViews (records: ObjectRecord[], parts: ViewParts): ObjectView[] {
  return records.map((record) => buildView(record, parts))
}

function buildView (r: ObjectRecord, parts: ViewParts): ObjectView {
  const counts = parts.relationCounts.get(r.id)
  const relations = counts === undefined
    ? []
    : [...counts.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, count]) => ({ name, count }))
  const child = parts.childCounts.get(r.id) ?? { sections: 0, contents: 0 }
  const d = parts.details.get(r.id) ?? emptyDetails()
  // field by field, not spreads: one object shape for every view keeps lists fast (and light on GC); the
  // view's type lists every own field (OWN_FIELDS), so a new one cannot be left out here
  return {
    id: r.id, object_type: r.object_type, nickname: r.nickname, status: r.status,
    title: r.title, description: r.description, subject: r.subject, abstract: r.abstract, body: r.body, note: r.note,
    lang: r.lang, rights: r.rights, license: r.license, creator: r.creator, publisher: r.publisher, comments: r.comments,
    valid: r.valid, start_date: r.start_date, end_date: r.end_date, publication_date: r.publication_date,
    created: r.created, modified: r.modified, user_created: r.user_created, user_modified: r.user_modified,
    read_groups: r.read_groups, write_groups: r.write_groups, file: r.file,
    languages: d.languages, custom_properties: d.custom_properties, geo_tags: d.geo_tags,
    tags: d.tags, categories: d.categories, date_items: d.date_items, parent_ids: d.parent_ids,
    object_type_id: objectTypeId(r.object_type),
    authorized: true,
    free_access: !isProtected(r),
    relations,
    children: isTreeNode(r.object_type) ? { count: child.sections + child.contents, ...child } : null,
    relation: parts.relationMeta?.get(r.id) ?? null,
  }
}

/** Puts records in the order of `ids`, dropping ids without a record. */
export function inIdOrder<T extends { id: number }> (ids: number[], records: T[]): T[] {
  const byId = new Map(records.map((r) => [r.id, r]))
  return ids.flatMap((id) => {
    const r = byId.get(id)
    return r ? [r] : []
  })
}
