import { searchedTexts } from './text-search.js'
import { DomainError, present } from '@content/platform'
import type { ChildScope, IdPage, ListQuery } from './ports.js'
import { aType, isTreeNode } from './object-types.js'
import { checkIncludeBudget, listSpecOf, needsSelect, type ListScope, type ListSpec, type WireQuery } from './list-query.js'
import { selectPage } from './list-select.js'
import { pageOf, pageWindow, type PageWindow } from './paging.js'
import { listFilterOf, listOf, readable, type PathRequest, type ReadDeps, type ViewList } from './read-context.js'
import type { Caller, ListFilter, ObjectRecord, Visibility } from './types.js'
import { isVisible } from './visibility.js'

export type TreeListKind = 'CHILDREN' | 'SECTIONS' | 'CONTENTS' | 'DESCENDANTS' | 'SIBLINGS' | 'ANCESTORS' | 'PARENTS'

const SCOPES: Partial<Record<TreeListKind, ChildScope>> = { CHILDREN: 'all', SECTIONS: 'sections', CONTENTS: 'contents' }

export interface TreeListRequest extends PathRequest {
  kind: string
  page?: { page?: number, page_size?: number } | null
  filter?: { object_types?: string[], query?: string } | null
  query?: WireQuery | null
}

export async function listTree (deps: ReadDeps, caller: Caller, request: TreeListRequest): Promise<ViewList> {
  const kind = request.kind as TreeListKind
  if (!['CHILDREN', 'SECTIONS', 'CONTENTS', 'DESCENDANTS', 'SIBLINGS', 'ANCESTORS', 'PARENTS'].includes(kind)) {
    throw new DomainError('VALIDATION_FAILED', `unknown tree list kind "${request.kind}"`, { kind: 'unknown tree list kind' })
  }
  const filter = listFilterOf(request.filter)
  const spec = listSpecOf(request.query)
  const window = pageWindow(request.page)
  checkIncludeBudget(spec, window.limit, deps.includeBudget)
  const { record, vis } = await readable(deps, caller, request.object_id, request.object_type)
  const query: ListQuery = { visibility: vis, filter, offset: window.offset, limit: window.limit }
  const page = await treePage(deps, record, kind, query, window, spec)
  return listOf(deps, window, page, vis, undefined, spec)
}

async function treePage (deps: ReadDeps, record: ObjectRecord, kind: TreeListKind, query: ListQuery, window: PageWindow, spec: ListSpec): Promise<IdPage & { next?: string | null, counted?: boolean }> {
  const { tree } = deps.store
  const scope = SCOPES[kind]
  const select = (on: ListScope, plain: () => Promise<IdPage>) => selectPage(deps, on, query.visibility, query.filter, spec, window, plain)
  if (scope !== undefined || kind === 'DESCENDANTS') {
    if (!isTreeNode(record.object_type)) {
      throw new DomainError('NOT_A_TREE_NODE', `object ${record.id} is ${aType(record.object_type)}; only areas and sections have children`)
    }
    return scope !== undefined
      ? select({ kind: 'children', node: record.id, scope }, () => tree.children(record.id, scope, query))
      : select({ kind: 'descendants', node: record.id, order: 'tree' }, () => tree.descendants(record.id, 'tree', query))
  }
  const parents = await tree.parents(record.id)
  if (kind === 'SIBLINGS') {
    if (parents.length === 0) throw new DomainError('NO_PARENT', `object ${record.id} has no parent`)
    const parent = present(parents[0], 'the first parent')
    return select({ kind: 'children', node: parent, scope: 'all', exclude: record.id }, () => tree.children(parent, 'all', { ...query, exclude: record.id }))
  }
  // parents and ancestors are short, unpaged by the grammar: they take fields and include only
  if (needsSelect(spec)) throw new DomainError('INVALID_PARAMETER', `${kind.toLowerCase()} take no filter, sort, cursor or count beyond filter[object_type] and filter[query]`, { parameter: 'filter' })
  const ids = kind === 'PARENTS' ? parents : await tree.ancestors(record.id)
  return filterInMemory(deps, ids, query.visibility, query.filter, window)
}

/** Short lists (parents, ancestors) are filtered and paged here, keeping their order. */
async function filterInMemory (deps: ReadDeps, ids: number[], vis: Visibility, filter: ListFilter, window: PageWindow): Promise<IdPage> {
  const records = new Map((await deps.store.objects.listByIds(ids)).map((r) => [r.id, r]))
  const kept = ids.filter((id) => {
    const r = records.get(id)
    return r !== undefined && isVisible(r, vis) && matchesFilter(r, filter)
  })
  return { ids: pageOf(kept, window), total: kept.length }
}

export function matchesFilter (record: ObjectRecord, filter: ListFilter): boolean {
  if (filter.object_types.length > 0 && !filter.object_types.includes(record.object_type)) return false
  if (filter.query === '') return true
  return searchedTexts(record).some((t) => t?.toLowerCase().includes(filter.query))
}

export async function childPosition (deps: ReadDeps, caller: Caller, req: PathRequest & { child_id: number }): Promise<number> {
  const childId = req.child_id
  const { record, vis } = await readable(deps, caller, req.object_id, req.object_type)
  const priority = await deps.store.tree.position(record.id, childId)
  const [child] = priority === null ? [] : await deps.store.objects.listByIds([childId])
  if (priority === null || child === undefined || !isVisible(child, vis)) {
    throw new DomainError('CHILD_NOT_FOUND', `object ${childId} is not a child of ${record.id}`)
  }
  return priority
}
