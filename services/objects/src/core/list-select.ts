import { DomainError } from '@content/platform'
import {
  decodeCursor, encodeCursor, fingerprintOf, isReference, needsSelect, sortKeysOf, type Clause, type ListScope, type ListSpec,
} from './list-query.js'
import { objectRef } from './object-ref.js'
import type { PageWindow } from './paging.js'
import type { IdPage } from './ports.js'
import type { ReadDeps } from './read-context.js'
import type { ListFilter, RelationMeta, Visibility } from './types.js'
import { isVisible } from './visibility.js'

/** A page of a list: ids in order, the total (null: not counted), the next cursor, relation meta of relation lists. */
export interface SelectedPage extends IdPage {
  counted: boolean
  /** cursor paging: the next page's cursor ('' on the last page); null: page paging */
  next: string | null
  meta?: Map<number, RelationMeta>
}

/**
 * A list page through the store's general path (ListsPort.select) when the query needs it; `plain`
 * answers the lists of decisions §3 through the stores' faster paths, unchanged.
 */
export async function selectPage (
  deps: ReadDeps, scope: ListScope, vis: Visibility, filter: ListFilter, spec: ListSpec, window: PageWindow,
  plain: () => Promise<IdPage & { meta?: Map<number, RelationMeta> }>,
): Promise<SelectedPage> {
  if (!needsSelect(spec)) return { ...(await plain()), counted: true, next: null }
  const fingerprint = fingerprintOf(scope, filter, spec)
  const secret = deps.store.storeId
  const after = spec.cursor === null || spec.cursor === 'start' ? null : decodeCursor(secret, fingerprint, spec.cursor)
  const clauses = await resolveReferences(deps, vis, spec.conditions)
  const byCursor = spec.cursor !== null
  if (clauses === null) return { ids: [], total: 0, counted: spec.count, next: byCursor ? '' : null }
  const sort = sortKeysOf(scope, spec.sort)
  const { rows, total } = await deps.store.lists.select(scope, {
    visibility: vis, filter, clauses, sort, after,
    offset: byCursor ? 0 : window.offset,
    // one row more than the page tells a cursor whether another page follows
    limit: byCursor ? window.limit + 1 : window.limit,
    count: spec.count,
  })
  const page = rows.slice(0, window.limit)
  const last = page[page.length - 1]
  const next = !byCursor ? null : rows.length > window.limit && last !== undefined ? encodeCursor(secret, fingerprint, last.position) : ''
  const meta = scope.kind === 'related' ? new Map(page.map((r) => [r.id, { priority: r.priority, params_json: r.params ?? '' }])) : undefined
  return { ids: page.map((r) => r.id), total: total ?? 0, counted: spec.count, next, ...(meta ? { meta } : {}) }
}

/**
 * Reference values (parent, ancestor, related.*: an id or a nickname) become the ids the caller may read.
 * One that does not exist or may not be read matches nothing, never revealing it: an `eq`/`in` drops it,
 * a `neq`/`nin` naming it makes the whole list empty (null), since its complement would reveal it.
 */
async function resolveReferences (deps: ReadDeps, vis: Visibility, clauses: Clause[]): Promise<Clause[] | null> {
  const out: Clause[] = []
  for (const c of clauses) {
    if (!isReference(c.field)) { out.push(c); continue }
    const ids: number[] = []
    for (const value of c.values) {
      const id = await readableId(deps, vis, String(value))
      if (id !== null) ids.push(id)
      else if (c.op === 'neq' || c.op === 'nin') return null
    }
    // no readable value left: an id no object has keeps the condition (and its OR group) false
    out.push({ ...c, values: ids.length > 0 ? ids : [0] })
  }
  return out
}

async function readableId (deps: ReadDeps, vis: Visibility, value: string): Promise<number | null> {
  let ref: ReturnType<typeof objectRef>
  try { ref = objectRef(value) } catch (err) { if (err instanceof DomainError) return null; throw err }
  const record = await deps.store.objects.get(ref)
  return record !== null && isVisible(record, vis) ? record.id : null
}
