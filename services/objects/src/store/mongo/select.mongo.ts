import { SEARCHED_FIELDS } from '../../core/text-search.js'
import type { SortKey } from '@content/api-schema'
import type { Document } from 'mongodb'
import type { Clause, ListScope, Position } from '../../core/list-query.js'
import type { ListsPort, SelectedRow, Selection } from '../../core/ports.js'
import { JOINED, allOf, filterMatch, joinObject, visibleMatch } from './rows.mongo.js'
import type { Collections } from './schema.mongo.js'

/**
 * Lists of decisions §15 as one aggregation: the scope's rows joined to their objects, the clauses as a
 * match (multi-valued tree and relation tests as bounded lookups), sort keys as fields with a null flag
 * so nulls come last both ways, keyset paging on those fields, the page and the total in one facet.
 */

const o = (field: string) => `${JOINED}.${field}`
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The scope's first stages, the collection they run on, and where the row's id and priority sit. */
function scopeStages (scope: ListScope): { collection: 'tree' | 'relations', stages: Document[], id: string } {
  switch (scope.kind) {
    case 'descendants': return {
      collection: 'tree', id: '_id',
      stages: [{ $match: { ancestors: scope.node } }, { $group: { _id: '$object_id', priority: { $min: '$priority' } } }, ...joinObject('_id')],
    }
    case 'children': {
      const match: Document = { parent_id: scope.node }
      if (scope.exclude !== undefined) match.object_id = { $ne: scope.exclude }
      const kind = scope.scope === 'sections' ? { [o('object_type')]: 'section' } : scope.scope === 'contents' ? { [o('object_type')]: { $ne: 'section' } } : {}
      return { collection: 'tree', id: 'object_id', stages: [{ $match: match }, ...joinObject('object_id'), { $match: kind }] }
    }
    case 'related': return {
      collection: 'relations', id: 'related_id',
      stages: [{ $match: { object_id: scope.object, name: scope.name } }, ...joinObject('related_id')],
    }
  }
}

/** A lookup that finds whether the object has a tree edge or relation matching a reference clause. */
function referenceLookup (c: Clause, as: string): Document {
  const values = c.values.map(Number)
  const id = `$${o('_id')}`
  if (c.field === 'parent' || c.field === 'ancestor') {
    const test = c.field === 'parent' ? { $in: ['$parent_id', values] } : { $gt: [{ $size: { $setIntersection: ['$ancestors', values] } }, 0] }
    return { $lookup: { from: 'tree', let: { id }, pipeline: [{ $match: { $expr: { $and: [{ $eq: ['$object_id', '$$id'] }, test] } } }, { $limit: 1 }], as } }
  }
  const name = c.field.slice('related.'.length)
  return {
    $lookup: {
      from: 'relations', let: { id },
      pipeline: [{ $match: { $expr: { $and: [{ $eq: ['$object_id', '$$id'] }, { $eq: ['$name', name] }, { $in: ['$related_id', values] }] } } }, { $limit: 1 }],
      as,
    },
  }
}

const isReference = (field: string) => field === 'parent' || field === 'ancestor' || field.startsWith('related.')

function clauseMatch (c: Clause, lookup: string | undefined): Document {
  const positive = c.op === 'eq' || c.op === 'in'
  if (lookup !== undefined) return { [lookup]: positive ? { $ne: [] } : { $eq: [] } }
  if (c.field === 'query') {
    const regex = { $regex: escapeRegex(String(c.values[0]).trim()), $options: 'i' }
    return { $or: SEARCHED_FIELDS.map((f) => ({ [o(f)]: regex })) }
  }
  if (c.field === 'tags' || c.field === 'categories') return { [o(c.field)]: positive ? { $in: c.values } : { $nin: c.values } }
  if (c.field.startsWith('custom_properties.')) {
    const name = c.field.slice('custom_properties.'.length)
    const has = (value?: unknown) => ({ [o('custom_properties')]: { $elemMatch: value === undefined ? { name } : { name, value } } })
    const not = (d: Document) => ({ [o('custom_properties')]: { $not: (d[o('custom_properties')] as Document) } })
    if (c.op === 'null') return c.values[0] === 'true' ? not(has()) : has()
    if (c.op === 'neq' || c.op === 'nin') return not(has(c.op === 'neq' ? c.values[0] : { $in: c.values }))
    return has(valueTest(c))
  }
  const field = o(c.field === 'id' ? '_id' : c.field)
  if (c.op === 'null') return { [field]: c.values[0] === 'true' ? null : { $ne: null } }
  return { [field]: valueTest(c) }
}

/** The test of one value (null never matches but neq and nin, as §15 says). */
function valueTest (c: Clause): unknown {
  const [a, b] = c.values
  switch (c.op) {
    case 'eq': return a
    case 'neq': return { $ne: a }
    case 'in': return { $in: c.values }
    case 'nin': return { $nin: c.values }
    case 'lt': return { $lt: a }
    case 'lte': return { $lte: a }
    case 'gt': return { $gt: a }
    case 'gte': return { $gte: a }
    case 'between': return { $gte: a, $lte: b }
    case 'contains': return { $regex: escapeRegex(String(a)), $options: 'i' }
    case 'starts_with': return { $regex: `^${escapeRegex(String(a))}`, $options: 'i' }
    case 'null': return null
  }
}

function keyExpression (key: SortKey, needle: string | null): unknown {
  if (key.field === 'priority') return '$priority'
  if (key.field === 'relevance') {
    const regex = escapeRegex(needle ?? '')
    const found = (f: string) => ({ $regexMatch: { input: { $ifNull: [`$${o(f)}`, ''] }, regex, options: 'i' } })
    return { $cond: [found('title'), 0, { $cond: [found('description'), 1, 2] }] }
  }
  return `$${o(key.field === 'id' ? '_id' : key.field)}`
}

/** Rows after `at`: the first differing key decides; nulls (flag 1) after values; the id breaks ties. */
function afterMatch (keys: SortKey[], at: Position, id: string): Document {
  const ors: Document[] = []
  const equal: Document[] = []
  keys.forEach((key, i) => {
    const v = at.keys[i] ?? null
    if (v !== null) {
      ors.push(allOf(...equal, { $or: [{ [`_k${i}`]: { [key.descending ? '$lt' : '$gt']: v }, [`_n${i}`]: 0 }, { [`_n${i}`]: 1 }] }))
      equal.push({ [`_n${i}`]: 0, [`_k${i}`]: v })
    } else {
      equal.push({ [`_n${i}`]: 1 })
    }
  })
  ors.push(allOf(...equal, { [id]: { $gt: at.id } }))
  return { $or: ors }
}

export function selectPipeline (scope: ListScope, s: Selection): { collection: 'tree' | 'relations', pipeline: Document[], id: string } {
  const { collection, stages, id } = scopeStages(scope)
  const lookups = new Map<Clause, string>()
  s.clauses.forEach((c, i) => { if (isReference(c.field)) lookups.set(c, `_r${i}`) })
  const and = s.clauses.filter((c) => c.group === null).map((c) => clauseMatch(c, lookups.get(c)))
  const groups = new Map<number, Document[]>()
  for (const c of s.clauses) if (c.group !== null) groups.set(c.group, [...(groups.get(c.group) ?? []), clauseMatch(c, lookups.get(c))])
  if (groups.size > 0) and.push({ $or: [...groups.values()].map((g) => allOf(...g)) })
  const needle = s.clauses.find((c) => c.field === 'query' && c.group === null)?.values[0] ?? (s.filter.query === '' ? null : s.filter.query)
  const keys: Document = {}
  s.sort.forEach((k, i) => {
    const e = keyExpression(k, needle === null ? null : String(needle).trim())
    keys[`_k${i}`] = e
    keys[`_n${i}`] = { $cond: [{ $eq: [{ $ifNull: [e, null] }, null] }, 1, 0] }
  })
  const order: Document = {}
  s.sort.forEach((k, i) => { order[`_n${i}`] = 1; order[`_k${i}`] = k.descending ? -1 : 1 })
  order[id] = 1
  const page: Document[] = [
    ...(s.after === null ? [] : [{ $match: afterMatch(s.sort, s.after, id) }]),
    { $sort: order }, { $skip: s.offset }, { $limit: Math.max(1, s.limit) },
    { $project: { _id: 0, id: `$${id}`, priority: collection === 'relations' ? '$priority' : { $literal: null }, params: collection === 'relations' ? '$params' : { $literal: null }, ...Object.fromEntries(s.sort.map((_, i) => [`k${i}`, `$_k${i}`])) } },
  ]
  return {
    collection, id,
    pipeline: [
      ...stages,
      { $match: allOf(visibleMatch(s.visibility), filterMatch(s.filter)) },
      ...[...lookups].map(([c, as]) => referenceLookup(c, as)),
      ...(and.length === 0 ? [] : [{ $match: allOf(...and) }]),
      ...(s.sort.length === 0 ? [] : [{ $addFields: keys }]),
      { $facet: { page, ...(s.count ? { total: [{ $count: 'n' }] } : {}) } },
    ],
  }
}

interface Result { page: Record<string, unknown>[], total?: { n: number }[] }

export async function select (c: Collections, scope: ListScope, s: Selection): Promise<{ rows: SelectedRow[], total: number | null }> {
  const { collection, pipeline } = selectPipeline(scope, s)
  const [result] = await (c[collection] as Collections['tree']).aggregate<Result>(pipeline, { allowDiskUse: true }).toArray()
  const rows = (result?.page ?? []).slice(0, Math.max(0, s.limit)).map((r): SelectedRow => ({
    id: r.id as number,
    position: { keys: s.sort.map((_, i) => (r[`k${i}`] ?? null) as string | number | null), id: r.id as number },
    priority: (r.priority as number | null | undefined) ?? null,
    params: (r.params as string | null | undefined) ?? null,
  }))
  return { rows, total: s.count ? result?.total?.[0]?.n ?? 0 : null }
}

export const listsPort = (c: Collections): ListsPort => ({ select: (scope, selection) => select(c, scope, selection) })
