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

function buildView (record: ObjectRecord, parts: ViewParts): ObjectView {
  const counts = parts.relationCounts.get(record.id)
  const relations = counts === undefined
    ? []
    : [...counts.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, count]) => ({ name, count }))
  const child = parts.childCounts.get(record.id) ?? { sections: 0, contents: 0 }
  return {
    ...record,
    ...(parts.details.get(record.id) ?? emptyDetails()),
    object_type_id: objectTypeId(record.object_type),
    authorized: true,
    free_access: !isProtected(record),
    relations,
    children: isTreeNode(record.object_type) ? { count: child.sections + child.contents, ...child } : null,
    relation: parts.relationMeta?.get(record.id) ?? null,
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
