import type { FixturePlan, PlannedObject, TargetRef } from '../../core/fixtures.plan.js'
import { ChangeRows } from './fixtures-changes.sqlite.js'
import { insertNewObject, Vocabulary } from './fixtures-objects.sqlite.js'
import { saveRelation } from './relations.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { upsertVocabulary } from './writes.sqlite.js'

/**
 * Writes a checked plan; the caller runs it inside one transaction. The rows and change events are
 * exactly those of inserting each object, placing each child and saving each relation one by one
 * (object.created for every object in file order, then child.added, then relation.*), but what those
 * steps would look up row by row — tree and relation positions, types, ancestors, vocabulary ids — is
 * looked up once and then followed in memory, since every row a plan writes involves a new object.
 * Answers ref → id and the number of the last change event written.
 */
export function applyPlan (st: Statements, plan: FixturePlan, now: number, at: number): { refs: Record<string, number>, lastSeq: number } {
  for (const c of plan.categories) upsertVocabulary(st, 'categories', c)
  for (const t of plan.tags) upsertVocabulary(st, 'tags', t)
  const vocabulary = new Vocabulary(st)
  const changes = new ChangeRows(st, at)
  const refs: Record<string, number> = {}
  const ids = plan.objects.map((o) => {
    const id = insertNewObject(st, o.write, now, vocabulary)
    changes.known(id, o.write.object_type)
    changes.objectCreated(id)
    if (o.ref !== null) refs[o.ref] = id
    return id
  })
  const resolve = (t: TargetRef): number => {
    if ('id' in t) return t.id
    const id = refs[t.ref]
    if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
    return id
  }
  placeChildren(st, plan.objects, ids, resolve, changes)
  saveRelations(st, plan.objects, ids, resolve, changes)
  return { refs, lastSeq: changes.last }
}

/** Next free priority per key, read from the store the first time a key is met and counted on from there. */
class Positions {
  private readonly next = new Map<string | number, number>()
  constructor (private readonly read: (key: string | number) => number) {}
  take (key: string | number, given: number | null): number {
    const known = this.next.get(key) ?? this.read(key)
    const priority = given ?? known
    this.next.set(key, Math.max(known, priority + 1))
    return priority
  }

  forget (key: string | number): void { this.next.delete(key) }
}

/**
 * Every edge joins a new child, placed once under each distinct parent: appended after the parent's last
 * child, its closure rows joined from the parent's ancestors and the child's subtree (which holds only the
 * child unless the child already got children of its own earlier in the plan).
 */
function placeChildren (st: Statements, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number, changes: ChangeRows): void {
  const positions = new Positions((parent) =>
    st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: parent })?.n ?? 1)
  const hasChildren = new Set<number>()
  const edges = new Set<string>()
  objects.forEach((o, i) => {
    const child = ids[i] as number
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      // `@publication` and its id both listed: placed once, as placeChild would
      if (edges.has(`${parentId}|${child}`)) continue
      edges.add(`${parentId}|${child}`)
      st.run('INSERT INTO tree (parent_id, object_id, priority) VALUES (@p, @c, @pr)', { p: parentId, c: child, pr: positions.take(parentId, null) })
      if (hasChildren.has(child)) {
        st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths)
          SELECT a.ancestor_id, d.descendant_id, a.paths * d.paths FROM closure a JOIN closure d
          ON a.descendant_id = @p AND d.ancestor_id = @c WHERE true
          ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths`, { p: parentId, c: child })
      } else {
        // the child's subtree is the child alone: one row per ancestor of the parent
        for (const [ancestor, paths] of changes.ancestors(parentId)) {
          st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths) VALUES (@a, @c, @n)
            ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths`, { a: ancestor, c: child, n: paths })
        }
      }
      changes.placed(child, hasChildren.has(child))
      hasChildren.add(parentId)
      changes.childAdded(child, parentId)
    }
  })
}

/**
 * Relations of new objects, appended after the object's (and the related object's) last relation of
 * that name. A pair the plan already saved (listed twice by an object without a ref) is saved again as
 * `saveRelation` does, and its positions are read afresh.
 */
function saveRelations (st: Statements, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number, changes: ChangeRows): void {
  const key = (id: number, name: string) => `${id}\u0000${name}`
  const positions = new Positions((k) => {
    const [id, name] = String(k).split('\u0000')
    return st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name',
      { id: Number(id), name })?.n ?? 1
  })
  const saved = new Set<string>()
  objects.forEach((o, i) => {
    const id = ids[i] as number
    for (const r of o.relations) {
      const related = resolve(r.related)
      const forward = `${key(id, r.name)}\u0000${related}`
      const back = `${key(related, r.inverse)}\u0000${id}`
      if (saved.has(forward) || saved.has(back)) {
        const again = saveRelation(st, id, r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
        positions.forget(key(id, r.name))
        positions.forget(key(related, r.inverse))
        changes.relation(again.created ? 'relation.created' : 'relation.updated', id, r.name, related)
        saved.add(forward).add(back)
        continue
      }
      const insert = `INSERT INTO relations (object_id, name, related_id, priority, params) VALUES (@id, @name, @rel, @priority, @params)`
      st.run(insert, { id, name: r.name, rel: related, priority: positions.take(key(id, r.name), r.priority), params: r.params })
      st.run(insert, { id: related, name: r.inverse, rel: id, priority: positions.take(key(related, r.inverse), null), params: r.params })
      saved.add(forward).add(back)
      changes.relation('relation.created', id, r.name, related)
    }
  })
}
