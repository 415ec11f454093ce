import type { ObjectsStore } from './ports.js'
import type { ObjectView, RelatedRow, Visibility } from './types.js'

/** Builds the full views of ids (in order); read-context's viewsOf, passed in to keep this module below it. */
export type ViewsOf<D> = (deps: D, ids: number[], vis: Visibility) => Promise<ObjectView[]>

/**
 * `include` (decisions §15): each view's `relations.<name>` gains the first `limit` related objects the
 * caller may read, in relation order, each with its relation meta; a second step of a path includes on
 * those. A fixed number of store reads per step, whatever the number of objects: the related rows of every
 * object at once, then the views of every related object at once.
 */
export async function addIncludes<D extends { store: ObjectsStore }> (deps: D, vis: Visibility, views: ObjectView[], paths: string[][], limit: number, viewsOf: ViewsOf<D>): Promise<void> {
  const steps = new Map<string, string[][]>()
  for (const [first, ...rest] of paths) {
    if (first === undefined) continue
    const deeper = steps.get(first) ?? []
    if (rest.length > 0) deeper.push(rest)
    steps.set(first, deeper)
  }
  for (const [name, deeper] of steps) {
    const holders = views.filter((v) => v.relations.some((r) => r.name === name))
    if (holders.length === 0) continue
    const rows = await deps.store.relations.firstOf(holders.map((v) => v.id), name, vis, limit)
    const ids = [...new Set([...rows.values()].flatMap((list) => list.map((r) => r.related_id)))]
    const related = new Map((await viewsOf(deps, ids, vis)).map((v) => [v.id, v]))
    if (deeper.length > 0) await addIncludes(deps, vis, [...related.values()], deeper, limit, viewsOf)
    for (const view of holders) {
      const entry = view.relations.find((r) => r.name === name)
      if (entry) entry.objects = itemsOf(rows.get(view.id) ?? [], related)
    }
  }
}

/** The related objects in relation order, each as a relation list's item (its own relation meta). */
function itemsOf (rows: RelatedRow[], related: Map<number, ObjectView>): ObjectView[] {
  return rows.flatMap((row) => {
    const view = related.get(row.related_id)
    return view ? [{ ...view, relation: { priority: row.priority, params_json: row.params ?? '' } }] : []
  })
}
