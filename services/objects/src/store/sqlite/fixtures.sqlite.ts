import { TargetGone } from '../../core/conflicts.js'
import { planLookups, type FixturePlan, type PlannedObject, type TargetRef } from '../../core/fixtures.plan.js'
import { objectCreated, parentPlaced, relationSaved } from '../../core/write-events.js'
import { ChangeRows } from './fixtures-changes.sqlite.js'
import { insertNewObject, Nicknames, Vocabulary } from './fixtures-objects.sqlite.js'
import { saveRelation } from './relations.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { countedInBulk } from './kept-counts.sqlite.js'
import { restateOrder } from './subtree-order.sqlite.js'
import { upsertVocabulary } from './writes.sqlite.js'

/**
 * Writes a checked plan; the caller runs it inside one transaction. The rows and change events are
 * exactly those of inserting each object, placing each child and saving each relation one by one
 * (object.created for every object in file order, then child.added, then relation.*), but what those
 * steps would look up row by row — tree and relation positions, types, ancestors, vocabulary ids — is
 * looked up once and then followed in memory, since every row a plan writes involves a new object.
 * Answers ref → id and the number of the last change event written.
 *
 * The caller may turn SQLite's foreign-key checks off: every row written joins a new object or one of
 * the existing objects the plan names, which are checked here, under the write lock, to be there still.
 */
export function applyPlan (st: Statements, plan: FixturePlan, now: number, at: number): { refs: Record<string, number>, lastSeq: number } {
  const named = planLookups(plan).ids
  const found = st.one<{ n: number }>('SELECT COUNT(*) AS n FROM objects WHERE id IN (SELECT value FROM json_each(@ids))', { ids: JSON.stringify(named) })
  if (found?.n !== named.length) throw new TargetGone()
  for (const c of plan.categories) upsertVocabulary(st, 'categories', c)
  for (const t of plan.tags) upsertVocabulary(st, 'tags', t)
  const vocabulary = new Vocabulary(st)
  const nicknames = new Nicknames(st, plan.objects.map((o) => o.write))
  const changes = new ChangeRows(st, at)
  const refs: Record<string, number> = {}
  const resolve = (t: TargetRef): number => {
    if ('id' in t) return t.id
    const id = refs[t.ref]
    if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
    return id
  }
  const ids = countedInBulk(st.db, () => {
    // each new text waits in text_pending: the indexer moves that many with a worker thread, off this one
    const inserted = plan.objects.map((o) => {
      const id = insertNewObject(st, o.write, now, vocabulary, nicknames)
      changes.known(id, o.write.object_type)
      changes.record(objectCreated(id))
      if (o.ref !== null) refs[o.ref] = id
      return id
    })
    placeChildren(st, plan.objects, inserted, resolve, changes)
    return inserted
  })
  saveRelations(st, plan.objects, ids, resolve, changes)
  changes.flush()
  return { refs, lastSeq: changes.last }
}

/**
 * Next free priority per object and name (a relation name; '' for children), read from the store the first
 * time a pair is met and counted on from there. A new object has no rows but those this plan writes: its ids
 * come after every id ever given (AUTOINCREMENT), so none is read.
 */
class Positions {
  private readonly next = new Map<number, Map<string, number>>()
  constructor (private readonly firstNew: number, private readonly read: (id: number, name: string) => number) {}
  take (id: number, name: string, given: number | null): number {
    const names = this.namesOf(id)
    const known = names.get(name) ?? (id >= this.firstNew ? 1 : this.read(id, name))
    const priority = given ?? known
    names.set(name, Math.max(known, priority + 1))
    return priority
  }

  /** After rows were written around this count (new objects' ones too): read the store again. */
  reread (id: number, name: string): void {
    this.namesOf(id).set(name, this.read(id, name))
  }

  private namesOf (id: number): Map<string, number> {
    let names = this.next.get(id)
    if (names === undefined) {
      names = new Map()
      this.next.set(id, names)
    }
    return names
  }
}

/**
 * Every edge joins a new child, placed once under each distinct parent: appended after the parent's last
 * child, its closure rows joined from the parent's ancestors and the child's subtree (which holds only the
 * child unless the child already got children of its own earlier in the plan).
 */
function placeChildren (st: Statements, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number, changes: ChangeRows): void {
  const positions = new Positions(ids[0] ?? Infinity, (parent) =>
    st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: parent })?.n ?? 1)
  const hasChildren = new Set<number>()
  objects.forEach((o, i) => {
    const child = ids[i] as number
    // `@publication` and its id both listed: placed once, as placeChild would
    const placed = o.parents.length > 1 ? new Set<number>() : null
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      if (placed?.has(parentId) === true) continue
      placed?.add(parentId)
      const priority = positions.take(parentId, '', null)
      st.run('INSERT INTO tree (parent_id, object_id, priority) VALUES (?, ?, ?)', [parentId, child, priority])
      if (hasChildren.has(child)) {
        st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths)
          SELECT a.ancestor_id, d.descendant_id, a.paths * d.paths FROM closure a JOIN closure d
          ON a.descendant_id = @p AND d.ancestor_id = @c WHERE true
          ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths`, { p: parentId, c: child })
        restateOrder(st, parentId, child, 'subtree')
      } else {
        // the child's subtree is the child alone: one row per ancestor of the parent, each of which has
        // the parent inside its subtree, so the new edge's priority counts for every one
        for (const [ancestor, paths] of changes.ancestors(parentId)) {
          st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths, priority) VALUES (?, ?, ?, ?)
            ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths,
            priority = MIN(priority, excluded.priority)`, [ancestor, child, paths, priority])
        }
      }
      changes.placed(child, hasChildren.has(child))
      hasChildren.add(parentId)
      changes.record(parentPlaced(child, parentId, true))
    }
  })
}

/**
 * Relations of new objects, appended after the object's (and the related object's) last relation of
 * that name. A checked plan relates no pair twice, except in the list of an object without a ref (no other
 * object can name it): a pair listed again there is saved again as `saveRelation` does, its positions read
 * afresh from the store.
 */
function saveRelations (st: Statements, objects: PlannedObject[], ids: number[], resolve: (t: TargetRef) => number, changes: ChangeRows): void {
  const positions = new Positions(ids[0] ?? Infinity, (id, name) =>
    st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name', { id, name })?.n ?? 1)
  const insert = 'INSERT INTO relations (object_id, name, related_id, priority, params) VALUES (?, ?, ?, ?, ?)'
  objects.forEach((o, i) => {
    const id = ids[i] as number
    // bound by position, as every hot statement here: binding by name costs more than inserting a small row
    const saved = o.relations.length > 1 ? new Set<string>() : null
    for (const r of o.relations) {
      const related = resolve(r.related)
      const pair = `${r.name}\u0000${related}`
      if (saved?.has(pair) === true) {
        const again = saveRelation(st, id, r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
        positions.reread(id, r.name)
        positions.reread(related, r.inverse)
        changes.record(relationSaved(id, r.name, related, again.created))
        continue
      }
      saved?.add(pair)
      st.run(insert, [id, r.name, related, positions.take(id, r.name, r.priority), r.params])
      st.run(insert, [related, r.inverse, id, positions.take(related, r.inverse, null), r.params])
      changes.record(relationSaved(id, r.name, related, true))
    }
  })
}
