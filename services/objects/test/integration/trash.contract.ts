import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { ListFilter, Visibility } from '../../src/core/types.js'
import type { ListQuery, ObjectsStore } from '../../src/core/ports.js'
import { draft, type StoreFactory } from './store.contract.js'
import { keyOf } from './site.fixture.js'
import { must } from '../support/must.js'

const everyone: Visibility = { statuses: ['on'], at: null, groups: [] }
const noFilter: ListFilter = { object_types: [], query: '' }
const q: ListQuery = { visibility: everyone, filter: noFilter, offset: 0, limit: 100 }
const KEY = keyOf('trashed file')
const FILE = { key: KEY, name: 'a.png', mime_type: 'image/png', size: 9, width: 1, height: 1 }

/** The trash every ObjectsStore adapter must keep (decisions §16). */
export function describeTrashContract (name: string, factory: StoreFactory): void {
  describe(`trash contract: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    beforeEach(async () => { ({ store, cleanup } = await factory()) })
    afterEach(async () => { await cleanup() })

    const since = async (seq: number) => (await store.changes.after(seq, 1_000)).map((e) => [e.type, e.object_id, e.object_type, e.affects])

    /** publication 1 > section s; document d under s with tags, a translation and permissions, related to image i and document e */
    async function site () {
      const s = await store.objects.create({ ...draft('section', 'S'), links: { parents: [1], relations: [] } }, 10)
      const i = await store.objects.create({ ...draft('image', 'I'), columns: { ...DEFAULT_COLUMNS, title: 'I', file: FILE } }, 10)
      const e = await store.objects.create(draft('document', 'E'), 10)
      const d = await store.objects.create({
        ...draft('document', 'Trashed doc', { nickname: 'the-doc', read_groups: ['members'], write_groups: ['editor'] }),
        extras: { tags: ['t1'], languages: { it: { title: 'Ciao' } }, custom_properties: { color: 'red' } },
        links: {
          parents: [s],
          relations: [
            { name: 'attach', inverse: 'attached_to', related_id: i, priority: 3, params: '{"label":"x"}' },
            { name: 'seealso', inverse: 'seealso', related_id: e, priority: null, params: null },
          ],
        },
      }, 10)
      return { s, i, e, d }
    }

    it('when an object is trashed, then it leaves every read but keeps its nickname, and object.trashed reaches its surroundings', async () => {
      const { s, i, e, d } = await site()
      const before = store.committedSeq()
      expect(await store.trash.put(d, 2, 500)).toBe('trashed')
      expect(await store.objects.get({ id: d })).toBeNull()
      expect(await store.objects.get({ nickname: 'the-doc' })).toBeNull()
      expect(await store.objects.listByIds([d])).toEqual([])
      expect((await store.tree.children(s, 'all', q)).ids).toEqual([])
      expect(await store.tree.hasChildren(s)).toBe(false)
      expect((await store.relations.list(i, 'attached_to', q)).items).toEqual([])
      expect(await store.relations.neighbours(e)).toEqual([])
      expect(await store.objects.nicknamesTaken(['the-doc', 'free'])).toEqual(['the-doc'])
      expect(await since(before)).toEqual([['object.trashed', d, 'document', [1, s, i, e, d].sort((a, b) => a - b)]])
      expect(await store.trash.list()).toEqual([{ id: d, object_type: 'document', read_groups: ['members'], write_groups: ['editor'], deleted: 500, user_id: 2 }])
      const [entry] = await store.trash.get([d, 999])
      expect(must(entry).record).toMatchObject({ id: d, title: 'Trashed doc', nickname: 'the-doc' })
      expect(must(entry).details).toMatchObject({ languages: { it: { title: 'Ciao' } }, custom_properties: { color: 'red' }, parent_ids: [s] })
      expect(must(entry).parent_ids).toEqual([s])
      expect(await store.trash.put(d, 2, 501)).toBe('absent')
    })

    it('when a trashed object is restored, then its fields, permissions, extras, place and relations come back, and object.restored is recorded', async () => {
      const { s, i, e, d } = await site()
      await store.trash.put(d, 2, 500)
      const before = store.committedSeq()
      expect(await store.trash.restore(d, null)).toBe('restored')
      expect(await store.objects.get({ nickname: 'the-doc' })).toMatchObject({ id: d, title: 'Trashed doc', read_groups: ['members'], write_groups: ['editor'] })
      expect((await store.objects.details([d])).get(d)).toMatchObject({ languages: { it: { title: 'Ciao' } }, custom_properties: { color: 'red' }, tags: [{ name: 't1' }], parent_ids: [s] })
      expect((await store.tree.children(s, 'all', { ...q, visibility: { ...everyone, groups: ['members'] } })).ids).toEqual([d])
      expect(await store.relations.get(d, 'attach', i)).toEqual({ related_id: i, priority: 3, params: '{"label":"x"}' })
      expect((await store.relations.get(i, 'attached_to', d))?.related_id).toBe(d)
      expect((await store.relations.get(e, 'seealso', d))?.related_id).toBe(d)
      expect(await since(before)).toEqual([['object.restored', d, 'document', [1, s, i, e, d].sort((a, b) => a - b)]])
      expect(await store.trash.list()).toEqual([])
      expect(await store.trash.restore(d, null)).toBe('absent')
    })

    it('when a related object or a parent is gone meanwhile, then the restore leaves those links out, or places the object where told', async () => {
      const { s, i, e, d } = await site()
      const other = await store.objects.create({ ...draft('section', 'Other'), links: { parents: [1], relations: [] } }, 10)
      const related = async () => [await store.relations.get(d, 'seealso', e), await store.relations.get(e, 'seealso', d)]
      const wasRelated = await related()
      await store.trash.put(d, 2, 500)
      await store.trash.put(e, 2, 501)
      await store.trash.put(s, 2, 502)
      expect(await store.trash.restore(d, [other])).toBe('restored')
      expect(await store.tree.parents(d)).toEqual([other])
      expect(await store.relations.neighbours(d)).toEqual([i])
      // a relation between two trashed objects waits in the other's entry and comes back with it
      expect(await store.trash.restore(e, null)).toBe('restored')
      expect(await store.relations.neighbours(e)).toEqual([d])
      expect(wasRelated.map((r) => r?.related_id)).toEqual([e, d])
      expect(await related()).toEqual(wasRelated)
    })

    it('when a trashed object is purged, then it is gone for good, object.deleted keeps its type, and its file is released', async () => {
      const { i } = await site()
      expect(await store.uploads.filesInUse([KEY], 0)).toEqual([KEY])
      await store.trash.put(i, 2, 500)
      expect(await store.uploads.filesInUse([KEY], 0)).toEqual([KEY])
      const before = store.committedSeq()
      expect(await store.trash.purge(i)).toBe('purged')
      expect(await since(before)).toEqual([['object.deleted', i, 'image', [i]]])
      expect(await store.uploads.filesInUse([KEY], 0)).toEqual([])
      expect(await store.trash.get([i])).toEqual([])
      expect(await store.trash.purge(i)).toBe('absent')
    })

    it('when a title like a trashed object\'s comes, then its generated nickname is suffixed; expired() answers the oldest past the retention', async () => {
      const { d, e } = await site()
      await store.trash.put(e, 2, 100)
      await store.trash.put(d, 2, 200)
      const again = await store.objects.create(draft('document', 'E'), 300)
      expect((await store.objects.get({ id: again }))?.nickname).toBe('e-1')
      expect(await store.trash.expired(150, 10)).toEqual([e])
      expect(await store.trash.expired(1_000, 1)).toEqual([e])
      expect(await store.trash.expired(1_000, 10)).toEqual([e, d])
    })
  })
}
