import { TargetGone } from '../../core/conflicts.js'
import { planLookups, type FixturePlan, type TargetRef } from '../../core/fixtures.plan.js'
import { parentPlaced, relationSaved } from '../../core/write-events.js'
import { saveRelation } from './relations.postgres.js'
import type { Tx } from './transactions.postgres.js'
import { placeChild } from './tree.postgres.js'
import { insertObject, upsertVocabulary } from './writes.postgres.js'

/**
 * Writes a checked plan in the caller's transaction, with the rows and change events of inserting each
 * object, placing each child and saving each relation one by one (fixtures.sqlite.ts): object.created for
 * every object in file order, then child.added, then relation.*. Answers ref → id.
 */
export async function applyPlan (tx: Tx, plan: FixturePlan, now: number): Promise<Record<string, number>> {
  const { db } = tx
  const named = planLookups(plan).ids
  const found = await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM objects WHERE id = ANY(@ids::bigint[])', { ids: named })
  if (found?.n !== named.length) throw new TargetGone()
  for (const c of plan.categories) await upsertVocabulary(db, 'categories', c)
  for (const t of plan.tags) await upsertVocabulary(db, 'tags', t)
  const refs: Record<string, number> = {}
  const resolve = (t: TargetRef): number => {
    if ('id' in t) return t.id
    const id = refs[t.ref]
    if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
    return id
  }
  const ids: number[] = []
  for (const o of plan.objects) {
    const { id } = await insertObject(tx, { ...o.write, links: undefined }, now)
    if (o.ref !== null) refs[o.ref] = id
    ids.push(id)
  }
  for (const [i, o] of plan.objects.entries()) {
    const child = ids[i] as number
    for (const parent of new Set(o.parents.map(resolve))) {
      const placed = await placeChild(db, parent, child, null)
      await tx.record(parentPlaced(child, parent, placed.created))
    }
  }
  for (const [i, o] of plan.objects.entries()) {
    const id = ids[i] as number
    for (const r of o.relations) {
      const related = resolve(r.related)
      const saved = await saveRelation(db, id, r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
      await tx.record(relationSaved(id, r.name, related, saved.created))
    }
  }
  return refs
}

