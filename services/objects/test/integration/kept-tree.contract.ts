import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { Status, Visibility } from '../../src/core/types.js'
import { canRead, inWindow } from '../../src/core/visibility.js'
import type { ChildScope, ObjectsStore, Selection } from '../../src/core/ports.js'
import { must } from '../support/must.js'

export const NOW = 1_800_000_000_000
const DATES = [null, NOW - 1_000, NOW + 1_000] as const
const GROUPS = [[], ['staff']] as const
export const VISIBILITIES: Visibility[] = [
  { statuses: ['on'], at: NOW, groups: [] },
  { statuses: ['on'], at: null, groups: ['staff'] },
  { statuses: ['on', 'draft'], at: NOW, groups: ['staff', 'other'] },
  // a writer asking for drafts (decisions §16): counted row by row, never from the kept counts
  { statuses: ['on'], at: NOW, groups: [], drafts: { everything: true, groups: [] } },
]
const SCOPES: ChildScope[] = ['all', 'sections', 'contents']
const TAG_SETS = [[], ['a'], ['b'], ['a', 'b']] as const

export type Step =
  | { op: 'create', section: boolean, status: Status, under: number, start: number, end: number, groups: number, tags?: number }
  | { op: 'tag', target: number, tags: number }
  | { op: 'status', target: number, status: Status }
  | { op: 'dates', target: number, start: number, end: number }
  | { op: 'protect', target: number, groups: number }
  | { op: 'place', target: number, under: number }
  | { op: 'unplace', target: number, under: number }
  | { op: 'remove', target: number }
  | { op: 'priority', target: number, under: number, priority: number }
  | { op: 'import', status: Status, under: number, start: number, groups: number }
  | { op: 'trash', target: number }
  | { op: 'restore', target: number }

const pick = fc.nat({ max: 1_000 })
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('create' as const), section: fc.boolean(), status: fc.constantFrom<Status>('on', 'off', 'draft'), under: pick, start: fc.nat({ max: 2 }), end: fc.nat({ max: 2 }), groups: fc.nat({ max: 1 }), tags: fc.nat({ max: 3 }) }) },
  fc.record({ op: fc.constant('tag' as const), target: pick, tags: fc.nat({ max: 3 }) }),
  fc.record({ op: fc.constant('status' as const), target: pick, status: fc.constantFrom<Status>('on', 'off', 'draft') }),
  fc.record({ op: fc.constant('dates' as const), target: pick, start: fc.nat({ max: 2 }), end: fc.nat({ max: 2 }) }),
  fc.record({ op: fc.constant('protect' as const), target: pick, groups: fc.nat({ max: 1 }) }),
  fc.record({ op: fc.constant('place' as const), target: pick, under: pick }),
  fc.record({ op: fc.constant('unplace' as const), target: pick, under: pick }),
  fc.record({ op: fc.constant('remove' as const), target: pick }),
  fc.record({ op: fc.constant('priority' as const), target: pick, under: pick, priority: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ op: fc.constant('import' as const), status: fc.constantFrom<Status>('on', 'off', 'draft'), under: pick, start: fc.nat({ max: 2 }), groups: fc.nat({ max: 1 }) }),
  fc.record({ op: fc.constant('trash' as const), target: pick }),
  fc.record({ op: fc.constant('restore' as const), target: pick }),
)

/** A tree edge with its child's row, as a store holds them (read groups: null when none). */
export interface EdgeRow { parent_id: number, object_id: number, priority: number, object_type: string, status: Status, start_date: number | null, end_date: number | null, read_groups: string[] | null }
/** The rows the model reads, straight from a store's tables (never through what the store keeps). */
export interface TreeRows { edges: EdgeRow[], tagged: { object_id: number, name: string }[] }

/** The tree as the rules of decisions §3 see it, computed from the rows (not from anything kept). */
class Model {
  private readonly edges: EdgeRow[]
  private readonly tagged: { object_id: number, name: string }[]
  constructor (rows: TreeRows) {
    this.edges = rows.edges
    this.tagged = rows.tagged
  }

  /** How many of the publication's visible descendants have `tag`. */
  taggedOnTree (tag: string, vis: Visibility): number {
    const shown = new Set(this.descendants(PUBLICATION_ID, vis))
    return this.tagged.filter((t) => t.name === tag && shown.has(t.object_id)).length
  }

  private visible (r: EdgeRow, vis: Visibility): boolean {
    const readGroups = r.read_groups ?? []
    // every object here has empty write groups: a writer asking for drafts sees them all
    const status = vis.statuses.includes(r.status) || (r.status === 'draft' && vis.drafts != null)
    return status && inWindow(r, vis.at) && canRead({ read_groups: readGroups }, vis.groups)
  }

  children (parent: number, vis: Visibility): { sections: number, contents: number } {
    const shown = this.edges.filter((e) => e.parent_id === parent && this.visible(e, vis))
    return { sections: shown.filter((e) => e.object_type === 'section').length, contents: shown.filter((e) => e.object_type !== 'section').length }
  }

  /** The visible children of a scope in tree order: priority, then id. */
  childOrder (parent: number, vis: Visibility, scope: ChildScope): number[] {
    const inScope = (e: EdgeRow) => scope === 'all' || (e.object_type === 'section') === (scope === 'sections')
    return this.edges.filter((e) => e.parent_id === parent && inScope(e) && this.visible(e, vis))
      .sort((a, b) => a.priority - b.priority || a.object_id - b.object_id).map((e) => e.object_id)
  }

  /** Every visible descendant once, by its lowest priority under a parent inside the subtree, then id. */
  descendants (node: number, vis: Visibility): number[] {
    const inside = new Set([node])
    for (let grew = true; grew;) {
      grew = false
      for (const e of this.edges) {
        if (inside.has(e.parent_id) && !inside.has(e.object_id)) { inside.add(e.object_id); grew = true }
      }
    }
    const key = new Map<number, number>()
    for (const e of this.edges) {
      if (!inside.has(e.parent_id) || e.object_id === node || !this.visible(e, vis)) continue
      key.set(e.object_id, Math.min(key.get(e.object_id) ?? Infinity, e.priority))
    }
    return [...key.keys()].sort((a, b) => (key.get(a) as number) - (key.get(b) as number) || a - b)
  }
}

/** [offset, limit] of every page of 2 and of 3 items, one past the end included, and of the whole list. */
const pages = (n: number): [number, number][] =>
  [[0, 1_000], ...[2, 3].flatMap((limit) => Array.from({ length: Math.ceil(n / limit) + 1 }, (_, i): [number, number] => [i * limit, limit]))]

export const unfiltered = (vis: Visibility, offset: number, limit: number) => ({ visibility: vis, filter: { object_types: [], query: '' }, offset, limit })

/** The whole store's list filtered by one tag (decisions §15), counted: its total comes from the kept tag counts. */
const byTag = (vis: Visibility, tag: string): Selection => ({
  visibility: vis, filter: { object_types: [], query: '' }, clauses: [{ field: 'tags', op: 'eq', values: [tag], group: null }],
  sort: [], after: null, offset: 0, limit: 1_000, count: true,
})

export async function expectKeptAsRows (store: ObjectsStore, rows: TreeRows, sections: number[]): Promise<void> {
  const model = new Model(rows)
  for (const vis of VISIBILITIES) {
    for (const tag of ['a', 'b']) {
      const listed = await store.lists.select({ kind: 'descendants', node: PUBLICATION_ID, order: 'id' }, byTag(vis, tag))
      expect({ tag, vis, total: listed.total }).toEqual({ tag, vis, total: model.taggedOnTree(tag, vis) })
      expect(listed.rows.length).toBe(listed.total)
    }
    const summaries = await store.tree.childCounts(sections, vis)
    for (const node of sections) {
      const want = model.children(node, vis)
      expect(summaries.get(node) ?? { sections: 0, contents: 0 }, `summary of ${node}`).toEqual(want)
      for (const scope of SCOPES) {
        const page = await store.tree.children(node, scope, unfiltered(vis, 0, 1))
        const total = scope === 'all' ? want.sections + want.contents : scope === 'sections' ? want.sections : want.contents
        expect(page.total, `${scope} of ${node}`).toBe(total)
      }
      // every page of two and of three: pages past the middle are read from the end
      for (const scope of SCOPES) {
        const children = model.childOrder(node, vis, scope)
        for (const [offset, limit] of pages(children.length)) {
          const listed = await store.tree.children(node, scope, unfiltered(vis, offset, limit))
          expect({ node, scope, offset, limit, ids: listed.ids }).toEqual({ node, scope, offset, limit, ids: children.slice(offset, offset + limit) })
        }
      }
      const order = model.descendants(node, vis)
      for (const [offset, limit] of pages(order.length)) {
        const listed = await store.tree.descendants(node, 'tree', unfiltered(vis, offset, limit))
        expect({ node, offset, limit, ids: listed.ids, total: listed.total }).toEqual({ node, offset, limit, ids: order.slice(offset, offset + limit), total: order.length })
      }
      const byId = await store.tree.descendants(node, 'id', unfiltered(vis, 0, 1_000))
      expect({ ids: byId.ids, total: byId.total }).toEqual({ ids: [...order].sort((a, b) => a - b), total: order.length })
    }
  }
}

export async function apply (store: ObjectsStore, s: Step, objects: number[], sections: number[], trashed: { id: number, section: boolean }[] = []): Promise<void> {
  const at = (i: number, list: number[]) => list[i % list.length] ?? PUBLICATION_ID
  const movable = objects.filter((id) => id !== PUBLICATION_ID)
  if (s.op === 'create') {
    const id = await store.objects.create({
      object_type: s.section ? 'section' : 'document', nickname: null, status: s.status,
      columns: { ...DEFAULT_COLUMNS, title: 't', start_date: DATES[s.start] ?? null, end_date: DATES[s.end] ?? null },
      read_groups: [...(GROUPS[s.groups] ?? [])], write_groups: [], user_id: 1, extras: { tags: [...(TAG_SETS[s.tags ?? 0] ?? [])] },
      links: { parents: [at(s.under, sections)], relations: [] },
    }, NOW)
    objects.push(id)
    if (s.section) sections.push(id)
  } else if (s.op === 'import') {
    // a section and a document in it and in an existing section, as one fixtures plan
    const start = DATES[s.start]
    const planned = planFixtures(JSON.stringify({
      objects: [
        { ref: 's', object_type: 'section', title: 's', status: s.status, parents: [at(s.under, sections)] },
        {
          ref: 'd', object_type: 'document', title: 'd', status: s.status, parents: ['s', at(s.under + 1, sections)], tags: ['a'],
          ...(start == null ? {} : { start_date: new Date(start).toISOString() }),
          ...(s.groups === 0 ? {} : { permissions: { read: ['staff'] } }),
        },
      ],
    }), ['staff'], PUBLICATION_ID)
    if (!planned.ok) throw new Error(planned.errors.join('; '))
    const refs = await store.applyFixtures(planned.plan, NOW)
    objects.push(must(refs.s), must(refs.d))
    sections.push(must(refs.s))
  } else if (s.op === 'restore') {
    // back under the parents it had that exist (decisions §16)
    const [back] = trashed.splice(s.target % Math.max(trashed.length, 1), 1)
    if (back === undefined) return
    await store.trash.restore(back.id, null)
    objects.push(back.id)
    if (back.section) sections.push(back.id)
  } else if (movable.length === 0) {
    // nothing but the publication yet
  } else if (s.op === 'dates') {
    await store.objects.update(at(s.target, movable), { columns: { start_date: DATES[s.start] ?? null, end_date: DATES[s.end] ?? null }, user_id: 1, extras: {} }, NOW)
  } else if (s.op === 'tag') {
    await store.objects.update(at(s.target, movable), { columns: {}, user_id: 1, extras: { tags: [...(TAG_SETS[s.tags] ?? [])] } }, NOW)
  } else if (s.op === 'status') {
    await store.objects.update(at(s.target, movable), { columns: {}, status: s.status, user_id: 1, extras: {} }, NOW)
  } else if (s.op === 'protect') {
    await store.objects.setPermissions(at(s.target, movable), [...(GROUPS[s.groups] ?? [])], [])
  } else if (s.op === 'place') {
    const child = at(s.target, movable)
    const parent = at(s.under, sections)
    // what core refuses before the store sees it (links.writer.ts checkPlacement): a cycle, and a section already under another parent
    const sectionElsewhere = sections.includes(child) && (await store.tree.parents(child)).some((p) => p !== parent)
    if (parent !== child && !sectionElsewhere && !(await store.tree.isAncestor(child, parent))) await store.tree.addChildren(parent, [{ child_id: child, priority: s.under % 3 === 0 ? 2 : null }])
  } else if (s.op === 'priority') {
    await store.tree.setPriority(at(s.under, sections), at(s.target, movable), s.priority)
  } else if (s.op === 'unplace') {
    await store.tree.removeChild(at(s.under, sections), at(s.target, movable))
  } else if (s.op === 'trash') {
    // the store trashes what it is given; the core refuses a section with children, this takes its edges with it
    const id = at(s.target, movable)
    await store.trash.put(id, 1, NOW)
    objects.splice(objects.indexOf(id), 1)
    trashed.push({ id, section: sections.includes(id) })
    if (sections.includes(id)) sections.splice(sections.indexOf(id), 1)
  } else {
    const id = at(s.target, movable)
    await store.objects.remove(id)
    objects.splice(objects.indexOf(id), 1)
    if (sections.includes(id)) sections.splice(sections.indexOf(id), 1)
  }
}

/** A store, the rows of its tables as the model reads them, and its end. */
export type KeptTreeFactory = () => Promise<{ store: ObjectsStore, rows: () => Promise<TreeRows>, cleanup: () => Promise<void> }>

/** What every store keeps of the tree (counts, totals, subtree order) against the rows, after generated write sequences. */
export function describeKeptTreeContract (name: string, factory: KeptTreeFactory, numRuns = 60): void {
  describe(`kept child and descendant counts and subtree order: ${name}`, () => {
    const opened: (() => Promise<void>)[] = []
    afterEach(async () => { for (const close of opened.splice(0)) await close() })
    const open = async () => {
      const made = await factory()
      opened.push(made.cleanup)
      return made
    }

    it('after any sequence of creates, fixtures imports, date, status, tag and permission changes, placements, removals, deletes, trashing and restoring, every count (the whole-store total of a tag too) and every descendants page equals what the rows say by the rules of decisions §3 and §15', async () => {
      await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const { store, rows, cleanup } = await factory()
        try {
          const objects = [PUBLICATION_ID]
          const sections = [PUBLICATION_ID]
          const trashed: { id: number, section: boolean }[] = []
          for (const s of steps) await apply(store, s, objects, sections, trashed)
          await expectKeptAsRows(store, await rows(), sections)
        } finally {
          await cleanup()
        }
      }), { numRuns })
    }, 180_000)

    it('an object under two parents of one subtree takes the lower priority, and the other one when that edge goes', async () => {
      const { store } = await open()
      const objects = [PUBLICATION_ID]
      const sections = [PUBLICATION_ID]
      for (const s of [
        { op: 'create', section: true, status: 'on', under: 0, start: 0, end: 0, groups: 0 },
        { op: 'create', section: false, status: 'on', under: 0, start: 0, end: 0, groups: 0 },
        { op: 'create', section: false, status: 'on', under: 1, start: 0, end: 0, groups: 0 },
      ] satisfies Step[]) await apply(store, s, objects, sections)
      const [a, b, x] = objects.slice(1) as [number, number, number]
      await store.tree.addChildren(PUBLICATION_ID, [{ child_id: x, priority: 5 }])
      const order = async () => (await store.tree.descendants(PUBLICATION_ID, 'tree', unfiltered(VISIBILITIES[0] as Visibility, 0, 10))).ids
      expect(await order()).toEqual([a, x, b])
      await store.tree.removeChild(a, x)
      expect(await order()).toEqual([a, b, x])
      await store.tree.addChildren(a, [{ child_id: x, priority: 3 }])
      expect(await order()).toEqual([a, b, x])
      await store.tree.setPriority(a, x, 1)
      expect(await order()).toEqual([a, x, b])
    })
  })
}
