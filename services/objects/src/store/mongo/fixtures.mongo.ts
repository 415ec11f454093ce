import { present } from '@content/platform'
import { TargetGone } from '../../core/conflicts.js'
import { planLookups, type FixturePlan, type TargetRef } from '../../core/fixtures.plan.js'
import { parentPlaced, relationSaved } from '../../core/write-events.js'
import { saveRelation } from './relations.mongo.js'
import type { Tx } from './schema.mongo.js'
import { placeChild } from './tree.mongo.js'
import { insertObject, upsertVocabulary } from './writes.mongo.js'

/**
 * Writes a checked plan; the caller runs it inside one transaction. The existing objects it names are
 * checked there first, as the SQLite store does: one deleted since the core's check refuses the plan
 * (a delete racing the transaction conflicts with its links, `lockLinked`, and the retry sees it gone).
 */
export async function applyPlan (tx: Tx, plan: FixturePlan, now: number): Promise<Record<string, number>> {
  const named = planLookups(plan).ids
  if (await tx.c.objects.countDocuments({ _id: { $in: named } }, { session: tx.session }) !== named.length) throw new TargetGone()
  for (const k of plan.categories) await upsertVocabulary(tx, 'categories', k)
  for (const t of plan.tags) await upsertVocabulary(tx, 'tags', t)
  const refs: Record<string, number> = {}
  const ids: number[] = []
  for (const o of plan.objects) {
    const id = await insertObject(tx, o.write, now)
    if (o.ref !== null) refs[o.ref] = id
    ids.push(id)
  }
  const resolve = (t: TargetRef): number => {
    if ('id' in t) return t.id
    const id = refs[t.ref]
    if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
    return id
  }
  for (const [i, o] of plan.objects.entries()) {
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      const placed = await placeChild(tx, parentId, present(ids[i], 'the planned id'), null)
      await tx.record(parentPlaced(present(ids[i], 'the planned id'), parentId, placed.created))
    }
  }
  for (const [i, o] of plan.objects.entries()) {
    for (const r of o.relations) {
      const related = resolve(r.related)
      const saved = await saveRelation(tx, present(ids[i], 'the planned id'), r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
      await tx.record(relationSaved(present(ids[i], 'the planned id'), r.name, related, saved.created))
    }
  }
  return refs
}
