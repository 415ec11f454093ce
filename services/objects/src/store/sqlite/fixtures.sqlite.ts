import { present } from '@content/platform'
import type { FixturePlan, TargetRef } from '../../core/fixtures.plan.js'
import type { Statements } from './rows.sqlite.js'
import { saveRelation } from './relations.sqlite.js'
import { placeChild } from './tree.sqlite.js'
import { insertObject, upsertVocabulary, type RecordChange } from './writes.sqlite.js'

/** Writes a checked plan; the caller runs it inside one transaction. */
export function applyPlan (st: Statements, plan: FixturePlan, now: number, record: RecordChange): Record<string, number> {
  for (const c of plan.categories) upsertVocabulary(st, 'categories', c)
  for (const t of plan.tags) upsertVocabulary(st, 'tags', t)
  const refs: Record<string, number> = {}
  const ids = plan.objects.map((o) => {
    const id = insertObject(st, o.write, now, record)
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
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      if (placeChild(st, parentId, present(ids[i], 'the planned id'), null).created) record({ type: 'child.added', object_id: present(ids[i], 'the planned id'), parent_id: parentId })
    }
  })
  plan.objects.forEach((o, i) => {
    for (const r of o.relations) {
      const related = resolve(r.related)
      const saved = saveRelation(st, present(ids[i], 'the planned id'), r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
      record({ type: saved.created ? 'relation.created' : 'relation.updated', object_id: present(ids[i], 'the planned id'), relation: r.name, related_id: related })
    }
  })
  return refs
}
