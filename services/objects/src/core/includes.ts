import type { ObjectsStore } from './ports.js'
import { checkWanted, type StillWanted } from './still-wanted.js'
import type { ObjectView, RelatedRow, Visibility } from './types.js'

/** What including needs: the store, and whether the caller still waits (checked before each batch). */
type IncludeDeps = { store: ObjectsStore, stillWanted?: StillWanted | undefined }

/** Builds the full views of ids (in order); read-context's viewsOf, passed in to keep this module below it. */
export type ViewsOf<D> = (deps: D, ids: number[], vis: Visibility) => Promise<ObjectView[]>

type Steps = Map<string, string[][]>

/** The first step of each path, with the rest of the paths that start with it. */
function stepsOf (paths: string[][]): Steps {
  const steps: Steps = new Map()
  for (const [first, ...rest] of paths) {
    if (first === undefined) continue
    const deeper = steps.get(first) ?? []
    if (rest.length > 0) deeper.push(rest)
    steps.set(first, deeper)
  }
  return steps
}

type Rows = Map<string, Map<number, RelatedRow[]>>

const relatedIdsOf = (rows: Rows): number[] => {
  const ids = new Set<number>()
  for (const byObject of rows.values()) for (const list of byObject.values()) for (const r of list) ids.add(r.related_id)
  return [...ids]
}

/**
 * `include` (decisions §15): each view's `relations.<name>` gains the first `limit` related objects the
 * caller may read, in relation order, each with its relation meta; a second step of a path includes on
 * those. Each level costs one relation read for every name and object at once and one view build for
 * every related object at once (an image that is both poster and attachment is built once), whatever
 * the number of objects. A caller that no longer waits stops it before each batch (checkWanted).
 */
export async function addIncludes<D extends IncludeDeps> (deps: D, vis: Visibility, views: ObjectView[], paths: string[][], limit: number, viewsOf: ViewsOf<D>): Promise<void> {
  const steps = stepsOf(paths)
  const names = [...steps.keys()].filter((name) => views.some((v) => v.relations.some((r) => r.name === name)))
  if (names.length === 0) return
  checkWanted(deps)
  const rows = await deps.store.relations.firstOf(views.map((v) => v.id), names, vis, limit)
  checkWanted(deps)
  const related = new Map((await viewsOf(deps, relatedIdsOf(rows), vis)).map((v) => [v.id, v]))
  await place(deps, vis, views, steps, rows, related, limit, viewsOf)
}

/**
 * A page's views with what `include` adds: the relation read comes first, so that the page's objects and
 * the related objects of the first level are built in one view build (a third of an include's cost
 * was the second build's statements, `loadtest/README.md`). Views in `ids` order, as viewsOf answers.
 */
export async function viewsWithIncludes<D extends IncludeDeps> (deps: D, vis: Visibility, ids: number[], paths: string[][], limit: number, viewsOf: ViewsOf<D>, build: ViewsOf<D> = viewsOf): Promise<ObjectView[]> {
  const steps = stepsOf(paths)
  checkWanted(deps)
  const rows = ids.length === 0 ? new Map() as Rows : await deps.store.relations.firstOf(ids, [...steps.keys()], vis, limit)
  checkWanted(deps)
  const onPage = new Set(ids)
  // `build`: the page's own view build (a relation list's adds each item's relation meta)
  const built = await build(deps, [...ids, ...relatedIdsOf(rows).filter((id) => !onPage.has(id))], vis)
  const byId = new Map(built.map((v) => [v.id, v]))
  const views = ids.flatMap((id) => byId.get(id) ?? [])
  await place(deps, vis, views, steps, rows, byId, limit, viewsOf)
  return views
}

/** Puts each name's related objects in place, then includes the deeper steps on them. */
async function place<D extends IncludeDeps> (deps: D, vis: Visibility, views: ObjectView[], steps: Steps, rows: Rows, related: Map<number, ObjectView>, limit: number, viewsOf: ViewsOf<D>): Promise<void> {
  for (const [name, deeper] of steps) {
    const placed: ObjectView[] = []
    for (const view of views) {
      const entry = view.relations.find((r) => r.name === name)
      if (!entry) continue
      entry.objects = itemsOf(rows.get(name)?.get(view.id) ?? [], related)
      placed.push(...entry.objects)
    }
    if (deeper.length > 0) await addIncludes(deps, vis, placed, deeper, limit, viewsOf)
  }
}

/**
 * The related objects in relation order, each as a relation list's item: its own relation meta, and its
 * own relations list, since a deeper include adds to it for this path only.
 */
function itemsOf (rows: RelatedRow[], related: Map<number, ObjectView>): ObjectView[] {
  return rows.flatMap((row) => {
    const view = related.get(row.related_id)
    return view ? [{ ...view, relations: view.relations.map((r) => ({ name: r.name, count: r.count })), relation: { priority: row.priority, params_json: row.params ?? '' } }] : []
  })
}
