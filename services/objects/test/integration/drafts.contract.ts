import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ListQuery, ObjectsStore, Selection } from '../../src/core/ports.js'
import type { ListFilter, Visibility } from '../../src/core/types.js'
import { isVisible } from '../../src/core/visibility.js'
import { draft, type StoreFactory } from './store.contract.js'

const noFilter: ListFilter = { object_types: [], query: '' }
const published: Visibility = { statuses: ['on'], at: null, groups: ['editor'] }
const editorDrafts: Visibility = { ...published, drafts: { everything: false, groups: ['editor'] } }
const adminDrafts: Visibility = { statuses: ['on'], at: null, groups: ['administrator'], drafts: { everything: true, groups: ['administrator'] } }
const query = (visibility: Visibility, limit = 100): ListQuery => ({ visibility, filter: noFilter, offset: 0, limit })

/**
 * The draft clause of a visibility (decisions §16), as every store compiles it: a writer who asks sees
 * the drafts whose write groups are empty or shared with it (an administrator every draft), in lists,
 * totals, child and relation counts and included rows; the read groups and the window still apply.
 */
export function describeDraftsContract (name: string, factory: StoreFactory): void {
  describe(`drafts contract: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    beforeEach(async () => { ({ store, cleanup } = await factory()) })
    afterEach(async () => { await cleanup() })

    /** section s under the publication: on, a draft anyone writing may write, a draft for administrators, an off one, a draft only members read (administrators read everything); d relates to all */
    async function site () {
      const s = await store.objects.create({ ...draft('section', 'S'), links: { parents: [1], relations: [] } }, 10)
      const under = (title: string, over: Parameters<typeof draft>[2] = {}) =>
        store.objects.create({ ...draft('document', title, over), links: { parents: [s], relations: [] } }, 10)
      const on = await under('On')
      const open = await under('Open draft', { status: 'draft' })
      const narrow = await under('Admin draft', { status: 'draft', write_groups: ['administrator'] })
      const off = await under('Off', { status: 'off' })
      const guarded = await under('Members draft', { status: 'draft', read_groups: ['members'] })
      const rel = (related_id: number) => ({ name: 'seealso', inverse: 'seealso', related_id, priority: null, params: null })
      const d = await store.objects.create({ ...draft('document', 'D'), links: { parents: [1], relations: [on, open, narrow, off, guarded].map(rel) } }, 10)
      return { s, on, open, narrow, off, guarded, d }
    }

    it('when a writer asks for drafts, then children, descendants and their totals add those it may write', async () => {
      const { s, on, open, narrow, guarded } = await site()
      expect(await store.tree.children(s, 'all', query(published))).toEqual({ ids: [on], total: 1 })
      expect(await store.tree.children(s, 'all', query(editorDrafts))).toEqual({ ids: [on, open], total: 2 })
      expect(await store.tree.children(s, 'contents', query(editorDrafts, 1))).toEqual({ ids: [on], total: 2 })
      expect(await store.tree.children(s, 'all', query(adminDrafts))).toEqual({ ids: [on, open, narrow, guarded], total: 4 })
      const below = await store.tree.descendants(1, 'id', query(editorDrafts))
      expect(below.ids).toEqual(expect.arrayContaining([s, on, open]))
      expect(below.ids).not.toContain(narrow)
      expect(below.total).toBe((await store.tree.descendants(1, 'id', query(published))).total + 1)
    })

    it('when a writer asks for drafts, then child counts, relation lists, counts and first rows follow', async () => {
      const { s, on, open, narrow, guarded, d } = await site()
      expect((await store.tree.childCounts([s], published)).get(s)).toEqual({ sections: 0, contents: 1 })
      expect((await store.tree.childCounts([s], editorDrafts)).get(s)).toEqual({ sections: 0, contents: 2 })
      expect((await store.tree.childCounts([s], adminDrafts)).get(s)).toEqual({ sections: 0, contents: 4 })
      const related = await store.relations.list(d, 'seealso', query(editorDrafts))
      expect([related.items.map((r) => r.related_id), related.total]).toEqual([[on, open], 2])
      expect((await store.relations.counts([d], published)).get(d)?.get('seealso')).toBe(1)
      expect((await store.relations.counts([d], editorDrafts)).get(d)?.get('seealso')).toBe(2)
      expect((await store.relations.counts([d], adminDrafts)).get(d)?.get('seealso')).toBe(4)
      const first = await store.relations.firstOf([d], ['seealso'], adminDrafts, 5)
      expect(first.get('seealso')?.get(d)?.map((r) => r.related_id)).toEqual([on, open, narrow, guarded])
    })

    it('when a writer asks for drafts, then the general list path (§15) admits the same rows', async () => {
      const { s, on, open } = await site()
      const selection: Selection = { visibility: editorDrafts, filter: noFilter, clauses: [], sort: [{ field: 'id', descending: false }], after: null, offset: 0, limit: 100, count: true }
      const page = await store.lists.select({ kind: 'children', node: s, scope: 'all' }, selection)
      expect([page.rows.map((r) => r.id), page.total]).toEqual([[on, open], 2])
    })

    it('read groups still apply to drafts, and other statuses stay hidden', async () => {
      const { s, guarded, off } = await site()
      const member: Visibility = { statuses: ['on'], at: null, groups: ['editor', 'members'], drafts: { everything: false, groups: ['editor', 'members'] } }
      expect((await store.tree.children(s, 'all', query(editorDrafts))).ids).not.toContain(guarded)
      expect((await store.tree.children(s, 'all', query(member))).ids).toContain(guarded)
      expect((await store.tree.children(s, 'all', query(adminDrafts))).ids).toContain(guarded)
      expect((await store.tree.children(s, 'all', query(adminDrafts))).ids).not.toContain(off)
    })

    it('the core rule (isVisible) agrees with the store', async () => {
      const { s } = await site()
      const all = await store.objects.listByIds(await allChildren(store, s))
      expect(all).toHaveLength(5)
      for (const vis of [published, editorDrafts, adminDrafts]) {
        const expected = (await store.tree.children(s, 'all', query(vis))).ids
        expect(all.filter((r) => isVisible(r, vis)).map((r) => r.id)).toEqual(expected)
      }
    })
  })
}

/** Every child of `node` whatever its status (an administrator's view with every status). */
async function allChildren (store: ObjectsStore, node: number): Promise<number[]> {
  const everything: Visibility = { statuses: ['on', 'off', 'draft'], at: null, groups: ['administrator'] }
  return (await store.tree.children(node, 'all', query(everything))).ids
}
