import { describeIssues } from '@content/platform'
import { fixturesFile, type FixtureObject, type FixtureTarget } from './fixtures.schema.js'
import { nicknameProblem } from './nickname.js'
import { dateItemsProblem, fileProblem, parentsProblem, windowProblem } from './object-rules.js'
import { aType, isObjectType, type ObjectTypeName } from './object-types.js'
import { DEFAULT_COLUMNS, splitFields, type ObjectWrite } from './object-input.js'
import { canRelate, inverseName } from './relation-types.js'

export const PUBLICATION_REF = '@publication'

/** An object named in a plan: one created by the same plan, or one that exists. */
export type TargetRef = { ref: string } | { id: number }

export interface PlannedRelation {
  name: string
  inverse: string
  related: TargetRef
  priority: number | null
  params: string | null
}

export interface PlannedObject {
  ref: string | null
  write: ObjectWrite
  parents: TargetRef[]
  relations: PlannedRelation[]
}

export interface FixturePlan {
  categories: { name: string, label: string }[]
  tags: { name: string, label: string }[]
  objects: PlannedObject[]
}

export type PlanOutcome = { ok: true, plan: FixturePlan } | { ok: false, errors: string[] }

/** Parses and checks everything a fixtures file can say about itself, collecting every problem. */
export function planFixtures (text: string, knownGroups: readonly string[], publicationId: number): PlanOutcome {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    return { ok: false, errors: [`(root): not valid JSON (${(err as Error).message})`] }
  }
  const parsed = fixturesFile.safeParse(raw)
  if (!parsed.success) return { ok: false, errors: describeIssues(parsed.error) }
  const file = parsed.data
  const errors: string[] = []
  const refs = collectRefs(file.objects, errors)
  const target = (t: FixtureTarget, where: string): TargetRef | null => {
    if (typeof t === 'number') return { id: t }
    if (t === PUBLICATION_REF) return { id: publicationId }
    if (!refs.has(t)) {
      errors.push(`${where}: unknown ref "${t}"`)
      return null
    }
    return { ref: t }
  }
  const objects = file.objects.map((o, i) => planObject(o, `objects.${i}`, target, knownGroups, errors))
  checkDuplicateNicknames(file.objects, errors)
  checkCycles(objects, errors)
  const label = (v: { name: string, label?: string | undefined }) => ({ name: v.name, label: v.label ?? v.name })
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, plan: { categories: file.categories.map(label), tags: file.tags.map(label), objects } }
}

function collectRefs (objects: FixtureObject[], errors: string[]): Set<string> {
  const refs = new Set<string>()
  objects.forEach((o, i) => {
    if (o.ref === undefined) return
    if (o.ref.startsWith('@')) errors.push(`objects.${i}.ref: refs starting with "@" are reserved`)
    else if (refs.has(o.ref)) errors.push(`objects.${i}.ref: duplicate ref "${o.ref}"`)
    refs.add(o.ref)
  })
  return refs
}

type Resolve = (t: FixtureTarget, where: string) => TargetRef | null

function planObject (o: FixtureObject, at: string, target: Resolve, knownGroups: readonly string[], errors: string[]): PlannedObject {
  checkObjectRules(o, at, knownGroups, errors)
  const parents = o.parents.map((p, j) => target(p, `${at}.parents.${j}`)).filter((p): p is TargetRef => p !== null)
  const { columns, extras } = splitFields(o)
  const write: ObjectWrite = {
    object_type: (isObjectType(o.object_type) ? o.object_type : 'document') as ObjectTypeName,
    nickname: o.nickname ?? null,
    status: o.status,
    columns: { ...DEFAULT_COLUMNS, ...columns },
    read_groups: [...new Set(o.permissions?.read ?? [])],
    write_groups: [...new Set(o.permissions?.write ?? [])],
    user_id: 0,
    extras,
  }
  return { ref: o.ref ?? null, write, parents, relations: planRelations(o, at, target, errors) }
}

function checkObjectRules (o: FixtureObject, at: string, knownGroups: readonly string[], errors: string[]): void {
  if (!isObjectType(o.object_type)) errors.push(`${at}.object_type: unknown object type "${o.object_type}"`)
  if (o.object_type === 'area') errors.push(`${at}.object_type: the publication is the only area`)
  const problems: [string, string | null][] = [
    ['parents', parentsProblem(o.object_type, o.parents.length)],
    ['parents', new Set(o.parents.map(String)).size === o.parents.length ? null : 'a parent is listed twice'],
    ['nickname', o.nickname === undefined ? null : nicknameProblem(o.nickname)],
    ['file', o.file != null && isObjectType(o.object_type) ? fileProblem(o.object_type) : null],
    ['date_items', dateItemsProblem(o.object_type, o.date_items?.length ?? 0)],
    ['end_date', windowProblem(o.start_date, o.end_date)],
  ]
  for (const [field, problem] of problems) if (problem) errors.push(`${at}.${field}: ${problem}`)
  for (const kind of ['read', 'write'] as const) {
    for (const group of o.permissions?.[kind] ?? []) {
      if (!knownGroups.includes(group)) errors.push(`${at}.permissions.${kind}: unknown group "${group}"`)
    }
  }
}

function planRelations (o: FixtureObject, at: string, target: Resolve, errors: string[]): PlannedRelation[] {
  const planned: PlannedRelation[] = []
  for (const [name, items] of Object.entries(o.relations)) {
    const inverse = inverseName(name)
    if (inverse === null) {
      errors.push(`${at}.relations.${name}: unknown relation "${name}"`)
      continue
    }
    items.forEach((item, j) => {
      const related = target(item.related, `${at}.relations.${name}.${j}.related`)
      if (related === null) return
      if ('ref' in related && related.ref === o.ref) errors.push(`${at}.relations.${name}.${j}: an object cannot relate to itself`)
      const params = item.params === undefined ? null : JSON.stringify(item.params)
      planned.push({ name, inverse, related, priority: item.priority ?? null, params })
    })
  }
  return planned
}

function checkDuplicateNicknames (objects: FixtureObject[], errors: string[]): void {
  const seen = new Set<string>()
  objects.forEach((o, i) => {
    if (o.nickname === undefined) return
    if (seen.has(o.nickname)) errors.push(`objects.${i}.nickname: "${o.nickname}" is used twice in the file`)
    seen.add(o.nickname)
  })
}

/** New parent edges only join new objects to each other or to existing ones, so cycles are among refs. */
function checkCycles (objects: PlannedObject[], errors: string[]): void {
  const parentsOf = new Map<string, string[]>()
  for (const o of objects) {
    if (o.ref === null) continue
    parentsOf.set(o.ref, o.parents.flatMap((p) => ('ref' in p ? [p.ref] : [])))
  }
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (ref: string): boolean => {
    if (state.get(ref) === 'done') return false
    if (state.get(ref) === 'visiting') return true
    state.set(ref, 'visiting')
    const cyclic = (parentsOf.get(ref) ?? []).some(visit)
    state.set(ref, 'done')
    return cyclic
  }
  for (const ref of parentsOf.keys()) {
    if (state.get(ref) === undefined && visit(ref)) errors.push(`objects: "${ref}" is placed under itself (a parent cycle)`)
  }
}

/** Facts from the store that the plan depends on. */
export interface StoreFacts {
  typeOfId: Map<number, ObjectTypeName>
  takenNicknames: string[]
  knownCategories: string[]
}

/** What a plan needs the store to confirm. */
export function planLookups (plan: FixturePlan): { ids: number[], nicknames: string[], categories: string[] } {
  const ids = new Set<number>()
  const categories = new Set<string>()
  const nicknames: string[] = []
  for (const o of plan.objects) {
    for (const p of o.parents) if ('id' in p) ids.add(p.id)
    for (const r of o.relations) if ('id' in r.related) ids.add(r.related.id)
    for (const c of o.write.extras.categories ?? []) categories.add(c)
    if (o.write.nickname !== null) nicknames.push(o.write.nickname)
  }
  return { ids: [...ids], nicknames, categories: [...categories] }
}

/** Checks of the plan against existing objects: ids exist, tree and relation types fit, names are free. */
export function checkPlanAgainstStore (plan: FixturePlan, facts: StoreFacts): string[] {
  const errors: string[] = []
  const typeOfRef = new Map(plan.objects.flatMap((o) => (o.ref === null ? [] : [[o.ref, o.write.object_type] as const])))
  const typeOf = (t: TargetRef) => ('ref' in t ? typeOfRef.get(t.ref) : facts.typeOfId.get(t.id))
  const name = (t: TargetRef) => ('ref' in t ? `"${t.ref}"` : `object ${t.id}`)
  const fileCategories = new Set(plan.categories.map((c) => c.name))
  // sets: a large file names many nicknames, each looked up
  const taken = new Set(facts.takenNicknames)
  const known = new Set(facts.knownCategories)
  plan.objects.forEach((o, i) => {
    const at = `objects.${i}`
    for (const p of o.parents) {
      const type = typeOf(p)
      if (type === undefined) errors.push(`${at}.parents: ${name(p)} does not exist`)
      else if (type !== 'area' && type !== 'section') errors.push(`${at}.parents: ${name(p)} is ${aType(type)}, not an area or section`)
    }
    for (const r of o.relations) {
      const type = typeOf(r.related)
      if (type === undefined) errors.push(`${at}.relations.${r.name}: ${name(r.related)} does not exist`)
      else if (!canRelate(r.name, o.write.object_type, type)) errors.push(`${at}.relations.${r.name}: ${aType(o.write.object_type)} cannot relate to ${aType(type)} with "${r.name}"`)
    }
    if (o.write.nickname !== null && taken.has(o.write.nickname)) errors.push(`${at}.nickname: "${o.write.nickname}" is already taken`)
    for (const c of o.write.extras.categories ?? []) {
      if (!fileCategories.has(c) && !known.has(c)) errors.push(`${at}.categories: unknown category "${c}"`)
    }
  })
  errors.push(...duplicateRelations(plan))
  return errors
}

function duplicateRelations (plan: FixturePlan): string[] {
  const key = (t: TargetRef) => ('ref' in t ? `r:${t.ref}` : `i:${t.id}`)
  const seen = new Set<string>()
  const errors: string[] = []
  plan.objects.forEach((o, i) => {
    if (o.ref === null) return
    const self = `r:${o.ref}`
    for (const r of o.relations) {
      const forward = `${self}|${r.name}|${key(r.related)}`
      if (seen.has(forward)) errors.push(`objects.${i}.relations.${r.name}: ${key(r.related).slice(2)} is related twice`)
      seen.add(forward)
      seen.add(`${key(r.related)}|${r.inverse}|${self}`)
    }
  })
  return errors
}
