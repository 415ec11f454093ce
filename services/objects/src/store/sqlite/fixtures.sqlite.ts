import type { FixturePlan, TargetRef } from '../../core/fixtures.plan.js'
import type { Statements } from './rows.sqlite.js'
import { saveRelation } from './relations.sqlite.js'
import { placeChild } from './tree.sqlite.js'
import { insertObject, upsertVocabulary } from './writes.sqlite.js'

/** Writes a checked plan; the caller runs it inside one transaction. */
export function applyPlan (st: Statements, plan: FixturePlan, now: number): Record<string, number> {
  for (const c of plan.categories) upsertVocabulary(st, 'categories', c)
  for (const t of plan.tags) upsertVocabulary(st, 'tags', t)
  const refs: Record<string, number> = {}
  const ids = plan.objects.map((o) => {
    const id = insertObject(st, o.write, now)
    if (o.ref !== null) refs[o.ref] = id
    return id
  })
  const resolve = (t: TargetRef): number => {
    if ('id' in t) return t.id
    const id = refs[t.ref]
    if (id === undefined) throw new Error(`unresolved ref ${t.ref}`)
    return id
  }
  plan.objects.forEach((o, i) => {
    for (const parent of o.parents) placeChild(st, resolve(parent), ids[i]!, null)
  })
  plan.objects.forEach((o, i) => {
    for (const r of o.relations) {
      saveRelation(st, ids[i]!, r.name, r.inverse, { related_id: resolve(r.related), priority: r.priority, params: r.params })
    }
  })
  return refs
}
