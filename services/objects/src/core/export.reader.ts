import { DomainError } from '@content/platform'
import { viewsOf, type ReadDeps } from './read-context.js'
import type { ObjectView, RelatedRow, Visibility } from './types.js'
import { STATUSES } from './types.js'
import { ADMINISTRATOR } from './write-access.js'

/** An object as an admin export holds it (proto ExportedObject). */
export interface ExportedObject {
  view: ObjectView
  parents: { parent_id: number, priority: number }[]
  relations: { name: string, related_id: number, priority: number | null, params: string | null }[]
}

export interface ExportPage {
  objects: ExportedObject[]
  next_after_id: number
  done: boolean
}

/** Every object, whatever its status, window or permissions: an export moves them all. */
const EVERYTHING: Visibility = { statuses: [...STATUSES], at: null, groups: [ADMINISTRATOR] }

/** Relation rows one call reads at most; an object with more is read in several. */
const RELATION_PAGE = 500

/** One page of the store by id (admin export), the publication included. */
export async function exportPage (deps: ReadDeps, afterId: number, limit: number): Promise<ExportPage> {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new DomainError('VALIDATION_FAILED', 'after_id must be 0 or more', { after_id: 'must be 0 or more' })
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new DomainError('VALIDATION_FAILED', 'limit must be 1 to 1000', { limit: 'must be 1 to 1000' })
  const ids = await deps.store.objects.idsAfter(afterId, limit)
  const views = await viewsOf(deps, ids, EVERYTHING)
  const objects: ExportedObject[] = []
  for (const view of views) objects.push({ view, parents: await placements(deps, view), relations: await relationRows(deps, view) })
  return { objects, next_after_id: ids.at(-1) ?? afterId, done: ids.length < limit }
}

async function placements (deps: ReadDeps, view: ObjectView): Promise<ExportedObject['parents']> {
  const out: ExportedObject['parents'] = []
  for (const parent of view.parent_ids) {
    const priority = await deps.store.tree.position(parent, view.id)
    if (priority !== null) out.push({ parent_id: parent, priority })
  }
  return out
}

async function relationRows (deps: ReadDeps, view: ObjectView): Promise<ExportedObject['relations']> {
  const out: ExportedObject['relations'] = []
  for (const { name } of view.relations) {
    for (let offset = 0; ; offset += RELATION_PAGE) {
      const { items } = await deps.store.relations.list(view.id, name, { visibility: EVERYTHING, filter: { object_types: [], query: '' }, offset, limit: RELATION_PAGE })
      out.push(...items.map((row: RelatedRow) => ({ name, related_id: row.related_id, priority: row.priority, params: row.params })))
      if (items.length < RELATION_PAGE) break
    }
  }
  return out
}
