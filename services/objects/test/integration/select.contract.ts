import fc from 'fast-check'
import { seededRandom } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SortKey } from '@content/api-schema'
import { sortKeysOf, type Clause, type ListScope, type Position } from '../../src/core/list-query.js'
import type { ObjectsStore, Selection } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { ListFilter, ObjectDetails, ObjectRecord, Visibility } from '../../src/core/types.js'
import { isVisible } from '../../src/core/visibility.js'
import { draft, type StoreFactory } from './store.contract.js'
import { must } from '../support/must.js'

/**
 * The lists of decisions §15 against a model: a fixed, varied site is built once; every generated query
 * (filters, OR groups, sort, paging, cursors) is answered by the store and by a plain computation over
 * the rows the caller may read. Multi-valued fields (tags, parents, relations) are in the data, so a
 * duplicated join row would show as a wrong total or a repeated id.
 */

const noFilter: ListFilter = { object_types: [], query: '' }
const TITLES = ['alpha', 'Alpha', 'beta', 'Beta gamma', 'gamma', 'Émile', 'zeta', null] as const
const COLORS = ['red', 'Red', 'blue', 'green', null] as const
const TAGS = ['news', 'sport', 'arts'] as const
const DAY = 86_400_000

interface Site {
  records: Map<number, ObjectRecord>
  details: Map<number, ObjectDetails>
  /** parent → children with priority */
  children: Map<number, { id: number, priority: number }[]>
  /** object → related ids by `seealso` (both directions stored) with priority */
  seealso: Map<number, { id: number, priority: number | null }[]>
  sections: number[]
  documents: number[]
}

async function buildSite (store: ObjectsStore): Promise<Site> {
  const rand = seededRandom(7)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T
  const sections: number[] = []
  for (const title of ['One', 'Two', 'Three']) {
    const id = await store.objects.create(draft('section', title), 1_000)
    await store.tree.addChildren(sections.length === 2 ? (sections[0] as number) : PUBLICATION_ID, [{ child_id: id, priority: null }])
    sections.push(id)
  }
  const documents: number[] = []
  for (let i = 0; i < 40; i++) {
    const color = pick(COLORS)
    const tags = TAGS.filter(() => rand() < 0.4)
    const protectedDoc = i % 11 === 5
    const id = await store.objects.create(draft(i % 5 === 0 ? 'event' : 'document', pick(TITLES), {
      status: i % 13 === 7 ? 'off' : 'on',
      read_groups: protectedDoc ? ['editors'] : [],
      columns: {
        ...draft('document', null).columns,
        title: pick(TITLES),
        description: rand() < 0.3 ? null : `about ${pick(['cats', 'Dogs', 'birds'])}`,
        publication_date: rand() < 0.25 ? null : 1_700_000_000_000 + Math.floor(rand() * 20) * DAY,
      },
      extras: { ...(color === null ? {} : { custom_properties: { color } }), tags },
    }), 1_000 + i)
    documents.push(id)
    await store.tree.addChildren(pick(sections), [{ child_id: id, priority: rand() < 0.3 ? 1 : null }])
    if (rand() < 0.25) await store.tree.addChildren(pick(sections), [{ child_id: id, priority: null }])
  }
  for (let i = 0; i < 30; i++) {
    const [a, b] = [pick(documents), pick(documents)]
    if (a !== b) await store.relations.save(a, 'seealso', 'seealso', [{ related_id: b, priority: rand() < 0.2 ? null : Math.floor(rand() * 4), params: null }])
  }
  const all = [PUBLICATION_ID, ...sections, ...documents]
  const records = new Map((await store.objects.listByIds(all)).map((r) => [r.id, r]))
  const details = await store.objects.details(all)
  const children = new Map<number, { id: number, priority: number }[]>()
  for (const parent of [PUBLICATION_ID, ...sections]) {
    const page = await store.tree.children(parent, 'all', { visibility: { statuses: ['on', 'off', 'draft'], at: null, groups: ['administrator'] }, filter: noFilter, offset: 0, limit: 1000 })
    const rows: { id: number, priority: number }[] = []
    for (const id of page.ids) rows.push({ id, priority: (await store.tree.position(parent, id)) as number })
    children.set(parent, rows)
  }
  const seealso = new Map<number, { id: number, priority: number | null }[]>()
  for (const id of documents) {
    const { items } = await store.relations.list(id, 'seealso', { visibility: { statuses: ['on', 'off', 'draft'], at: null, groups: ['administrator'] }, filter: noFilter, offset: 0, limit: 1000 })
    seealso.set(id, items.map((r) => ({ id: r.related_id, priority: r.priority })))
  }
  return { records, details, children, seealso, sections, documents }
}

// ---------------------------------------------------------------- the model

type Value = string | number | null

function fieldValue (site: Site, id: number, field: string): Value {
  const r = site.records.get(id) as ObjectRecord
  if (field.startsWith('custom_properties.')) return site.details.get(id)?.custom_properties[field.slice(18)] ?? null
  return (r as unknown as Record<string, Value>)[field] ?? null
}

function matches (site: Site, id: number, c: Clause): boolean {
  if (c.field === 'tags') {
    const has = site.details.get(id)?.tags.some((t) => c.values.includes(t.name)) ?? false
    return c.op === 'eq' || c.op === 'in' ? has : !has
  }
  if (c.field === 'parent') {
    const has = [...site.children].some(([parent, kids]) => c.values.includes(parent) && kids.some((k) => k.id === id))
    return c.op === 'eq' || c.op === 'in' ? has : !has
  }
  if (c.field === 'related.seealso') {
    const has = (site.seealso.get(id) ?? []).some((r) => c.values.includes(r.id))
    return c.op === 'eq' || c.op === 'in' ? has : !has
  }
  const v = fieldValue(site, id, c.field)
  const [a, b] = c.values as Value[]
  if (c.op === 'null') return (v === null) === (c.values[0] === 'true')
  if (v === null) return c.op === 'neq' || c.op === 'nin'
  switch (c.op) {
    case 'eq': return v === a
    case 'neq': return v !== a
    case 'in': return c.values.includes(v)
    case 'nin': return !c.values.includes(v)
    case 'lt': return v < (a as Value & {})
    case 'lte': return v <= (a as Value & {})
    case 'gt': return v > (a as Value & {})
    case 'gte': return v >= (a as Value & {})
    case 'between': return v >= (a as Value & {}) && v <= (b as Value & {})
    case 'contains': return String(v).toLowerCase().includes(String(a).toLowerCase())
    case 'starts_with': return String(v).toLowerCase().startsWith(String(a).toLowerCase())
  }
}

function admitted (site: Site, id: number, clauses: Clause[]): boolean {
  const and = clauses.filter((c) => c.group === null)
  const groups = new Map<number, Clause[]>()
  for (const c of clauses) if (c.group !== null) groups.set(c.group, [...(groups.get(c.group) ?? []), c])
  return and.every((c) => matches(site, id, c)) && (groups.size === 0 || [...groups.values()].some((g) => g.every((c) => matches(site, id, c))))
}

/** Code point order (JS `<` on strings is UTF-16 order: equal here, the site has no astral characters). */
function compare (a: Value, b: Value): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return a < b ? -1 : 1
}

function modelList (site: Site, scope: ListScope, vis: Visibility, clauses: Clause[], sort: SortKey[]): { id: number, keys: Value[] }[] {
  let rows: { id: number, priority: Value }[]
  // every section and document of the site is below the publication (the only descendants scope asked)
  if (scope.kind === 'descendants') rows = [...site.sections, ...site.documents].map((id) => ({ id, priority: null }))
  else if (scope.kind === 'children') rows = (site.children.get(scope.node) ?? []).map((k) => ({ id: k.id, priority: k.priority }))
  else rows = (site.seealso.get(scope.object) ?? []).map((r) => ({ id: r.id, priority: r.priority }))
  const kept = rows.filter((r) => isVisible(site.records.get(r.id) as ObjectRecord, vis) && admitted(site, r.id, clauses))
  const keyed = kept.map((r) => ({ id: r.id, keys: sort.map((k) => (k.field === 'priority' ? r.priority : fieldValue(site, r.id, k.field))) }))
  return keyed.sort((x, y) => {
    for (let i = 0; i < sort.length; i++) {
      const [a, b] = [x.keys[i] as Value, y.keys[i] as Value]
      const c = a === null || b === null ? compare(a, b) : compare(a, b) * ((sort[i] as SortKey).descending ? -1 : 1)
      if (c !== 0) return c
    }
    return x.id - y.id
  })
}

// ---------------------------------------------------------------- the generated queries

const dateValue = fc.integer({ min: 0, max: 21 }).map((d) => 1_700_000_000_000 + d * DAY)
const clauseArb = (site: Site): fc.Arbitrary<Clause> => fc.oneof(
  fc.record({ field: fc.constant('title'), op: fc.constantFrom('eq', 'neq', 'lt', 'gte', 'contains', 'starts_with'), values: fc.constantFrom('alpha', 'Alpha', 'beta', 'g', 'É', 'z').map((v) => [v]) }),
  fc.record({ field: fc.constant('title'), op: fc.constantFrom('in', 'nin'), values: fc.subarray(['alpha', 'beta', 'gamma', 'zeta'], { minLength: 1 }) }),
  fc.record({ field: fc.constant('description'), op: fc.constant('null'), values: fc.constantFrom(['true'], ['false']) }),
  fc.record({ field: fc.constant('description'), op: fc.constantFrom('contains', 'starts_with'), values: fc.constantFrom(['dog'], ['ABOUT c'], ['s']) }),
  fc.record({ field: fc.constant('publication_date'), op: fc.constantFrom('eq', 'lt', 'lte', 'gt', 'gte', 'neq'), values: dateValue.map((v) => [v]) }),
  fc.record({ field: fc.constant('publication_date'), op: fc.constant('between'), values: fc.tuple(dateValue, dateValue).map(([a, b]) => [Math.min(a, b), Math.max(a, b)]) }),
  fc.record({ field: fc.constant('publication_date'), op: fc.constant('null'), values: fc.constantFrom(['true'], ['false']) }),
  fc.record({ field: fc.constant('custom_properties.color'), op: fc.constantFrom('eq', 'neq', 'lt', 'gt', 'contains', 'starts_with'), values: fc.constantFrom('red', 'Red', 'blue', 'e').map((v) => [v]) }),
  fc.record({ field: fc.constant('custom_properties.color'), op: fc.constantFrom('in', 'nin'), values: fc.subarray(['red', 'blue', 'green'], { minLength: 1 }) }),
  fc.record({ field: fc.constant('custom_properties.color'), op: fc.constant('null'), values: fc.constantFrom(['true'], ['false']) }),
  fc.record({ field: fc.constant('tags'), op: fc.constantFrom('eq', 'neq'), values: fc.constantFrom(...TAGS).map((v) => [v]) }),
  fc.record({ field: fc.constant('tags'), op: fc.constantFrom('in', 'nin'), values: fc.subarray([...TAGS], { minLength: 1 }) }),
  fc.record({ field: fc.constant('object_type'), op: fc.constantFrom('eq', 'neq'), values: fc.constantFrom(['document'], ['event'], ['section']) }),
  fc.record({ field: fc.constant('id'), op: fc.constantFrom('lt', 'lte', 'gt', 'gte', 'neq'), values: idBound(site).map((v) => [v]) }),
  fc.record({ field: fc.constant('id'), op: fc.constant('between'), values: fc.tuple(idBound(site), idBound(site)).map(([a, b]) => [Math.min(a, b), Math.max(a, b)]) }),
  fc.record({ field: fc.constant('parent'), op: fc.constantFrom('eq', 'in', 'neq', 'nin'), values: fc.subarray(site.sections, { minLength: 1, maxLength: 2 }) }),
  fc.record({ field: fc.constant('related.seealso'), op: fc.constantFrom('eq', 'neq'), values: fc.constantFrom(...site.documents).map((v) => [v]) }),
).map((c) => ({ ...c, op: c.op as Clause['op'], values: c.values as (string | number)[], group: null }))

/** An id bound (decisions §15): an object's id, or any integer in the column's range, zero and negatives included. */
const idBound = (site: Site) => fc.oneof(fc.constantFrom(...site.documents), fc.constantFrom(0, -5, 2147483647, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER))

const SORTABLE = ['id', 'title', 'nickname', 'created', 'publication_date', 'object_type', 'priority'] as const
const sortArb = fc.uniqueArray(fc.constantFrom(...SORTABLE), { maxLength: 3 })
  .chain((fields) => fc.tuple(...fields.map((f) => fc.boolean().map((d): SortKey => ({ field: f, descending: d })))))

const everyone: Visibility = { statuses: ['on'], at: null, groups: [] }
const visibilityArb = fc.constantFrom<Visibility>(
  { statuses: ['on'], at: null, groups: [] },
  { statuses: ['on'], at: null, groups: ['editors'] },
  { statuses: ['on', 'off', 'draft'], at: null, groups: ['administrator'] },
)

export function describeSelectContract (name: string, factory: StoreFactory): void {
  describe(`lists of decisions §15 against a model: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    let site: Site
    beforeAll(async () => {
      ({ store, cleanup } = await factory())
      site = await buildSite(store)
    }, 60_000)
    afterAll(async () => { await cleanup() })

    const scopeArb = () => fc.oneof(
      fc.constant<ListScope>({ kind: 'descendants', node: PUBLICATION_ID, order: 'id' }),
      fc.constantFrom(...site.sections).map((node): ListScope => ({ kind: 'children', node, scope: 'all' })),
      fc.constantFrom(...site.documents).map((object): ListScope => ({ kind: 'related', object, name: 'seealso' })),
    )
    const queryArb = () => fc.record({
      scope: scopeArb(),
      vis: visibilityArb,
      and: fc.array(clauseArb(site), { maxLength: 3 }),
      or: fc.array(fc.array(clauseArb(site), { minLength: 1, maxLength: 2 }), { maxLength: 2 }),
      sort: sortArb,
    }).map((q) => {
      const clauses = [...q.and, ...q.or.flatMap((g, i) => g.map((c) => ({ ...c, group: i })))]
      // priority orders only tree and relation lists
      const sort = q.scope.kind === 'descendants' ? q.sort.filter((k) => k.field !== 'priority') : q.sort
      return { ...q, clauses, sort: sortKeysOf(q.scope, sort) }
    })
    const selection = (vis: Visibility, clauses: Clause[], sort: SortKey[], over: Partial<Selection>): Selection =>
      ({ visibility: vis, filter: noFilter, clauses, sort, after: null, offset: 0, limit: 100, count: true, ...over })

    it('when any filter, OR group and sort is asked, then the page and the total are the model\'s', async () => {
      await fc.assert(fc.asyncProperty(queryArb(), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 7 }), async (q, offset, limit) => {
        const expected = modelList(site, q.scope, q.vis, q.clauses, q.sort)
        const got = await store.lists.select(q.scope, selection(q.vis, q.clauses, q.sort, { offset, limit }))
        expect(got.rows.map((r) => r.id)).toEqual(expected.slice(offset, offset + limit).map((r) => r.id))
        expect(got.total).toBe(expected.length)
      }), { numRuns: 250, seed: 15 })
    })

    it('when a list is walked by cursor positions, then every row comes once, in order, and count=none counts nothing', async () => {
      await fc.assert(fc.asyncProperty(queryArb(), fc.integer({ min: 1, max: 4 }), async (q, size) => {
        const expected = modelList(site, q.scope, q.vis, q.clauses, q.sort).map((r) => r.id)
        const walked: number[] = []
        let after: Position | null = null
        for (let step = 0; step < 60; step++) {
          const page = await store.lists.select(q.scope, selection(q.vis, q.clauses, q.sort, { after, limit: size, count: false }))
          expect(page.total).toBeNull()
          walked.push(...page.rows.map((r) => r.id))
          const last = page.rows[page.rows.length - 1]
          if (page.rows.length < size || last === undefined) break
          after = last.position
        }
        expect(walked).toEqual(expected)
      }), { numRuns: 120, seed: 16 })
    })

    // last: it adds objects the model's site does not hold
    it('when an object\'s publication date or tags change, then a tag\'s objects by date follow', async () => {
      const at = (day: number) => 1_800_000_000_000 + day * DAY
      const make = async (title: string, day: number) => {
        const id = await store.objects.create(draft('document', title, { columns: { ...draft('document', null).columns, title, publication_date: at(day) }, extras: { tags: ['dated'] } }), 5_000)
        await store.tree.addChildren(must(site.sections[0]), [{ child_id: id, priority: null }])
        return id
      }
      const [a, b, c] = [await make('Dated a', 1), await make('Dated b', 2), await make('Dated c', 3)]
      const scope: ListScope = { kind: 'descendants', node: PUBLICATION_ID, order: 'id' }
      const byDate = async () => (await store.lists.select(scope, selection(everyone, [{ field: 'tags', op: 'eq', values: ['dated'], group: null }], [{ field: 'publication_date', descending: true }], {}))).rows.map((r) => r.id)
      expect(await byDate()).toEqual([c, b, a])
      await store.objects.update(a, { columns: { publication_date: at(9) }, user_id: 7, extras: {} }, 6_000)
      expect(await byDate()).toEqual([a, c, b])
      await store.objects.update(b, { columns: {}, user_id: 7, extras: { tags: ['other'] } }, 6_000)
      await store.objects.update(c, { columns: { publication_date: null }, user_id: 7, extras: {} }, 6_000)
      expect(await byDate()).toEqual([a, c])
    })
  })
}
