import { DomainError } from '@content/platform'
import { PUBLICATION_ID } from './publication.js'
import { pageWindow } from './paging.js'
import { isRelationValidFor } from './relation-types.js'
import { checkIncludeBudget, listSpecOf, needsSelect, type ListScope, type WireQuery } from './list-query.js'
import { selectPage } from './list-select.js'
import { callerVisibility, includedView, listFilterOf, listOf, readable, viewOf, type PathRequest, type ReadDeps, type ViewList } from './read-context.js'
import type { Caller, ListFilter, ObjectRecord, ObjectView, RelationMeta } from './types.js'
import { isVisible } from './visibility.js'

type PageRequest = { page?: number, page_size?: number } | null | undefined
type FilterRequest = { object_types?: string[], query?: string } | null | undefined

/** The single read: `include` and `include_limit` only (decisions §15). */
export async function getObject (deps: ReadDeps, caller: Caller, req: PathRequest & { query?: WireQuery | null }): Promise<ObjectView> {
  const spec = listSpecOf(req.query)
  if (needsSelect(spec)) throw new DomainError('INVALID_PARAMETER', 'a single object takes no filter, sort, cursor or count', { parameter: 'filter' })
  checkIncludeBudget(spec, 1, deps.includeBudget)
  const { record, vis } = await readable(deps, caller, req.object_id, req.object_type)
  return includedView(deps, await viewOf(deps, record, vis), vis, spec)
}

/** The descendants of the publication, by id; the publication itself must be readable. */
export async function listObjects (deps: ReadDeps, caller: Caller, page: PageRequest, filter: FilterRequest, query?: WireQuery | null): Promise<ViewList> {
  const listFilter = listFilterOf(filter)
  const spec = listSpecOf(query)
  const window = pageWindow(page)
  checkIncludeBudget(spec, window.limit, deps.includeBudget)
  const { vis } = await readable(deps, caller, String(PUBLICATION_ID))
  const scope: ListScope = { kind: 'descendants', node: PUBLICATION_ID, order: 'id' }
  const ids = await selectPage(deps, scope, vis, listFilter, spec, window,
    () => deps.store.tree.descendants(PUBLICATION_ID, 'id', { visibility: vis, filter: listFilter, offset: window.offset, limit: window.limit }))
  return listOf(deps, window, ids, vis, undefined, spec)
}

/** The relation names of the object with their counts, and its id (the request may name it by nickname). */
export async function relationSummary (deps: ReadDeps, caller: Caller, req: PathRequest): Promise<{ relations: { name: string, count: number }[], object_id: number }> {
  const { record, vis } = await readable(deps, caller, req.object_id, req.object_type)
  const counts = (await deps.store.relations.counts([record.id], vis)).get(record.id)
  const relations = [...(counts?.entries() ?? [])].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, count]) => ({ name, count }))
  return { relations, object_id: record.id }
}

function checkRelationName (record: ObjectRecord, name: string): void {
  if (!isRelationValidFor(name, record.object_type)) {
    throw new DomainError('UNKNOWN_RELATION', `"${name}" is not a relation of ${record.object_type} objects`)
  }
}

/** Related objects by relation priority (ties by id), each with its relation meta. */
export async function listRelated (deps: ReadDeps, caller: Caller, req: PathRequest & { name: string, page?: PageRequest, filter?: FilterRequest, query?: WireQuery | null }): Promise<ViewList> {
  const listFilter: ListFilter = listFilterOf(req.filter)
  const spec = listSpecOf(req.query)
  const window = pageWindow(req.page)
  checkIncludeBudget(spec, window.limit, deps.includeBudget)
  const { record, vis } = await readable(deps, caller, req.object_id, req.object_type)
  checkRelationName(record, req.name)
  const page = await selectPage(deps, { kind: 'related', object: record.id, name: req.name }, vis, listFilter, spec, window, async () => {
    const { items, total } = await deps.store.relations.list(record.id, req.name, { visibility: vis, filter: listFilter, offset: window.offset, limit: window.limit })
    const meta = new Map(items.map((i) => [i.related_id, { priority: i.priority, params_json: i.params ?? '' }]))
    return { ids: items.map((i) => i.related_id), total, meta }
  })
  return listOf(deps, window, page, vis, page.meta, spec)
}

export async function getRelation (deps: ReadDeps, caller: Caller, req: PathRequest & { name: string, related_id: number }): Promise<RelationMeta> {
  const { name, related_id: relatedId } = req
  const { record, vis } = await readable(deps, caller, req.object_id, req.object_type)
  checkRelationName(record, name)
  const row = await deps.store.relations.get(record.id, name, relatedId)
  const [related] = row === null ? [] : await deps.store.objects.listByIds([relatedId])
  if (row === null || related === undefined || !isVisible(related, vis)) {
    throw new DomainError('RELATION_NOT_FOUND', `object ${record.id} has no "${name}" relation to ${relatedId}`)
  }
  return { priority: row.priority, params_json: row.params ?? '' }
}

export { callerVisibility }
