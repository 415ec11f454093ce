import { TOO_DEEP, describeIssues, parseJson } from '@content/platform'
import { fixturesFile, type FixtureObject, type FixtureTarget } from './fixtures.schema.js'
import { nicknameProblem } from './nickname.js'
import { dateItemsProblem, fileProblem, parentsProblem, windowProblem } from './object-rules.js'
import { aType, isObjectType, isTreeNode, type ObjectTypeName } from './object-types.js'
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
  // relation params are stored as JSON text: a value nested thousands deep would overflow JSON.stringify's stack
  const json = parseJson(text)
  if (!json.ok) return { ok: false, errors: [json.tooDeep ? `(root): ${TOO_DEEP}` : json.rule ? `(root): ${json.syntax}` : `(root): not valid JSON (${json.syntax})`] }
  const parsed = fixturesFile.safeParse(json.value)
  if (!parsed.success) return { ok: false, errors: describeIssues(parsed.error) }
  const file = parsed.data
  const errors: string[] = []
  const refs = collectRefs(file.objects, errors)
  const target = (t: FixtureTarget, where: () => string): TargetRef | null => {
    if (typeof t === 'number') return { id: t }
    if (t === PUBLICATION_REF) return { id: publicationId }
    if (!refs.has(t)) {
      errors.push(`${where()}: unknown ref "${t}"`)
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

/** `where` names the place for an error: only built for one (a file names hundreds of thousands of targets). */
type Resolve = (t: FixtureTarget, where: () => string) => TargetRef | null

function planObject (o: FixtureObject, at: string, target: Resolve, knownGroups: readonly string[], errors: string[]): PlannedObject {
  checkObjectRules(o, at, knownGroups, errors)
  const parents = o.parents.map((p, j) => target(p, () => `${at}.parents.${j}`)).filter((p): p is TargetRef => p !== null)
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
      const related = target(item.related, () => `${at}.relations.${name}.${j}.related`)
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

/**
 * New parent edges only join new objects to each other or to existing ones, so cycles are among refs. A
 * file whose objects name as parents only refs of objects before them (as files are written, parents
 * first) has no cycle; any other is walked.
 */
function checkCycles (objects: PlannedObject[], errors: string[]): void {
  if (onlyBackwardParents(objects)) return
  const parentsOf = new Map<string, string[]>()
  for (const o of objects) {
    if (o.ref === null) continue
    parentsOf.set(o.ref, o.parents.flatMap((p) => ('ref' in p ? [p.ref] : [])))
  }
  const state = new Map<string, 'visiting' | 'done'>()
  for (const ref of parentsOf.keys()) {
    if (state.get(ref) === undefined && reachesCycle(ref, parentsOf, state)) errors.push(`objects: "${ref}" is placed under itself (a parent cycle)`)
  }
}

/** Whether every ref parent names an object before it, each ref once (a repeated ref is walked as the last of its name). */
function onlyBackwardParents (objects: PlannedObject[]): boolean {
  const before = new Set<string>()
  for (const o of objects) {
    for (const p of o.parents) if ('ref' in p && !before.has(p.ref)) return false
    if (o.ref === null) continue
    if (before.has(o.ref)) return false
    before.add(o.ref)
  }
  return true
}

/**
 * Depth first from `start` through parents, marking refs done: whether it meets a ref on its own path.
 * A parent that meets one ends its object's walk at once. On a stack of its own, not the call stack, which a
 * chain of tens of thousands of nested sections would overflow.
 */
function reachesCycle (start: string, parentsOf: Map<string, string[]>, state: Map<string, 'visiting' | 'done'>): boolean {
  const path: { ref: string, parents: string[], next: number }[] = []
  /** a ref's answer when it has one at once (done: no; on the path: yes), else null and it is entered */
  const enter = (ref: string): boolean | null => {
    const seen = state.get(ref)
    if (seen !== undefined) return seen === 'visiting'
    state.set(ref, 'visiting')
    path.push({ ref, parents: parentsOf.get(ref) ?? [], next: 0 })
    return null
  }
  let found = enter(start)
  for (let top = path.at(-1); top !== undefined; top = path.at(-1)) {
    if (found === true || top.next >= top.parents.length) {
      state.set(top.ref, 'done')
      path.pop()
      found = found === true
      continue
    }
    found = enter(top.parents[top.next++] as string)
  }
  return found === true
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
      else if (!isTreeNode(type)) errors.push(`${at}.parents: ${name(p)} is ${aType(type)}, not an area or section`)
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
  const pairs = new RelatedPairs()
  const errors: string[] = []
  plan.objects.forEach((o, i) => {
    if (o.ref === null) return
    for (const r of o.relations) {
      const to = 'ref' in r.related ? r.related.ref : r.related.id
      if (!pairs.add(o.ref, r.name, to)) errors.push(`objects.${i}.relations.${r.name}: ${to} is related twice`)
      pairs.add(to, r.inverse, o.ref)
    }
  })
  return errors
}

/**
 * Which object relates to which, by name: a ref is a string and an id a number, so neither is taken for
 * the other, and no name or ref can be spelled to match another pair. Most objects relate to one other
 * under a name: that one is kept as it is, a set only from the second.
 */
class RelatedPairs {
  private readonly byName = new Map<string, Map<string | number, string | number | Set<string | number>>>()

  /** false when the pair was there already */
  add (from: string | number, name: string, to: string | number): boolean {
    let targets = this.byName.get(name)
    if (targets === undefined) {
      targets = new Map()
      this.byName.set(name, targets)
    }
    const known = targets.get(from)
    if (known === undefined) {
      targets.set(from, to)
      return true
    }
    if (known instanceof Set) {
      if (known.has(to)) return false
      known.add(to)
      return true
    }
    if (known === to) return false
    targets.set(from, new Set([known, to]))
    return true
  }
}
