import { DomainError, present } from '@content/platform'
import { addIncludes, viewsWithIncludes } from './includes.js'
import { NO_SPEC, type ListSpec } from './list-query.js'
import type { IdPage, ObjectsStore } from './ports.js'
import { objectRef } from './object-ref.js'
import { isObjectType, isTreeNode } from './object-types.js'
import { buildViews, inIdOrder, type ViewParts } from './object-view.js'
import { pagingOf, type PageWindow, type Paging } from './paging.js'
import type { Caller, ListFilter, ObjectRecord, ObjectView, RelationMeta, Visibility } from './types.js'
import { readAccess, visibilityFor, type VisibilitySettings } from './visibility.js'
import { checkWanted, type StillWanted } from './still-wanted.js'

export interface ReadDeps {
  store: ObjectsStore
  visibility: VisibilitySettings
  now: () => number
  /** INCLUDE_BUDGET (decisions §15); unset: DEFAULT_INCLUDE_BUDGET */
  includeBudget?: number
  /** the read's caller still waits (its call's deadline and cancellation); none outside a call */
  stillWanted?: StillWanted
}

export interface ViewList {
  objects: ObjectView[]
  paging: Paging
}

export function callerVisibility (deps: ReadDeps, caller: Caller): Visibility {
  return visibilityFor(deps.visibility, caller, deps.now())
}

/** What a read names in its path: the object (id or nickname) and, below an object-type endpoint, its type. */
export interface PathRequest { object_id: string, object_type?: string }

export const notFound = (what: string) => new DomainError('OBJECT_NOT_FOUND', `object ${what} not found`)

/**
 * The object named in a path, if this caller may read it: else 404, 401 or 403. Below an object-type
 * endpoint (`objectType` not empty) an object of another type is not found, once its read rights are checked.
 */
export async function readable (deps: ReadDeps, caller: Caller, objectId: string, objectType = ''): Promise<{ record: ObjectRecord, vis: Visibility }> {
  const record = await deps.store.objects.get(objectRef(objectId))
  const vis = callerVisibility(deps, caller)
  if (record === null) throw notFound(`"${objectId}"`)
  switch (readAccess(record, vis, caller)) {
    case 'ok':
      if (objectType !== '' && record.object_type !== objectType) {
        throw new DomainError('OBJECT_NOT_FOUND', `no ${objectType} with id or nickname "${objectId}"`)
      }
      return { record, vis }
    case 'hidden': throw notFound(`"${objectId}"`)
    case 'anonymous': throw new DomainError('OBJECT_PROTECTED', `object "${objectId}" is protected; authentication required`)
    case 'denied': throw new DomainError('PERMISSION_DENIED', `no permission to read object "${objectId}"`)
  }
}

/** Full views of `ids` in that order: a fixed number of batched store reads, whatever the count. */
export async function viewsOf (deps: ReadDeps, ids: number[], vis: Visibility, relationMeta?: Map<number, RelationMeta>): Promise<ObjectView[]> {
  if (ids.length === 0) return []
  const { store } = deps
  const [records, details, relationCounts] = await Promise.all([
    store.objects.listByIds(ids), store.objects.details(ids), store.relations.counts(ids, vis),
  ])
  return completeViews(deps, inIdOrder(ids, records), vis, { details, relationCounts, ...(relationMeta ? { relationMeta } : {}) })
}

/** The full view of a record already loaded (the object a path names): its row is not read again. */
export async function viewOf (deps: ReadDeps, record: ObjectRecord, vis: Visibility): Promise<ObjectView> {
  const { store } = deps
  const [details, relationCounts] = await Promise.all([store.objects.details([record.id]), store.relations.counts([record.id], vis)])
  const [view] = await completeViews(deps, [record], vis, { details, relationCounts })
  return present(view, 'the view of the object')
}

/** Adds the child counts of the areas and sections among `records`, then builds their views in order. */
async function completeViews (deps: ReadDeps, records: ObjectRecord[], vis: Visibility, parts: Omit<ViewParts, 'childCounts'>): Promise<ObjectView[]> {
  const nodes = records.filter((r) => isTreeNode(r.object_type)).map((r) => r.id)
  const childCounts = await deps.store.tree.childCounts(nodes, vis)
  return buildViews(records, { ...parts, childCounts })
}

/** Validates the list filter of a request: type names must be known. */
export function listFilterOf (filter: { object_types?: string[], query?: string } | null | undefined): ListFilter {
  const types = (filter?.object_types ?? []).map((t) => t.trim()).filter((t) => t !== '')
  const unknown = types.filter((t) => !isObjectType(t))
  if (unknown.length > 0) {
    throw new DomainError('VALIDATION_FAILED', `unknown object type in filter: ${unknown.join(', ')}`,
      { 'filter[object_type]': `unknown object type: ${unknown.join(', ')}` })
  }
  return { object_types: types.filter(isObjectType), query: (filter?.query ?? '').trim().toLowerCase() }
}

/** A page's views, with what `include` adds, and its paging (by cursor and uncounted when the query says so). */
export async function listOf (deps: ReadDeps, window: PageWindow, page: IdPage & { counted?: boolean, next?: string | null }, vis: Visibility, meta?: Map<number, RelationMeta>, spec: ListSpec = NO_SPEC): Promise<ViewList> {
  checkWanted(deps)
  const objects = spec.include.length === 0
    ? await viewsOf(deps, page.ids, vis, meta)
    : await viewsWithIncludes(deps, vis, page.ids, spec.include, spec.include_limit, viewsOf, (d, ids, v) => viewsOf(d, ids, v, meta))
  const paging = pagingOf(window, page.total, objects.length)
  if (page.next !== null && page.next !== undefined) paging.next_cursor = page.next
  if (page.counted === false) paging.uncounted = true
  return { objects, paging }
}

/** The single read's view, with what `include` adds. */
export async function includedView (deps: ReadDeps, view: ObjectView, vis: Visibility, spec: ListSpec): Promise<ObjectView> {
  if (spec.include.length > 0) await addIncludes(deps, vis, [view], spec.include, spec.include_limit, viewsOf)
  return view
}
