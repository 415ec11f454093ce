import { afterEach, describe, expect, it } from 'vitest'
import { UniqueConflict } from '../../src/core/conflicts.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { draft } from './store.contract.js'
import { must } from '../support/must.js'

/** Opens a fresh store keeping `keep` revisions per object (null: all). */
export type KeepingStoreFactory = (keep: number | null) => Promise<{ store: ObjectsStore, cleanup: () => Promise<void> }>

/** The revisions every ObjectsStore adapter must keep (decisions §16), written with the object writes. */
export function describeRevisionsContract (name: string, factory: KeepingStoreFactory): void {
  describe(`revisions contract: ${name}`, () => {
    const opened: (() => Promise<void>)[] = []
    afterEach(async () => { for (const close of opened.splice(0)) await close() })
    const open = async (keep: number | null = null) => {
      const { store, cleanup } = await factory(keep)
      opened.push(cleanup)
      return store
    }
    const numbers = async (store: ObjectsStore, id: number) => (await store.revisions.list(id, 0, 100)).items.map((r) => [r.revision, r.changed])

    it('when an object is created and its own fields change, then each write stores the fields after it; a write of extras only stores none', async () => {
      const store = await open()
      const id = await store.objects.create(draft('document', 'First', { user_id: 3 }), 100)
      expect(await store.objects.update(id, { columns: { title: 'Second', body: 'text' }, user_id: 4, extras: {} }, 200)).toBe(true)
      expect(await store.objects.update(id, { columns: { title: 'Second' }, user_id: 4, extras: { tags: ['t'] } }, 300)).toBe(true)
      expect(await store.objects.update(id, { columns: { body: null }, user_id: 5, extras: {} }, 400)).toBe(true)
      expect(await numbers(store, id)).toEqual([[3, ['body']], [2, ['title', 'body']], [1, ['title']]])
      const second = must(await store.revisions.get(id, 2))
      expect(second).toMatchObject({ revision: 2, created: 200, user_id: 4, changed: ['title', 'body'] })
      expect(second.data).toMatchObject({ title: 'Second', body: 'text', description: null, lang: 'en', valid: true, start_date: null })
      expect(Object.keys(second.data)).not.toContain('nickname')
      expect(await store.revisions.get(id, 4)).toBeNull()
      const page = await store.revisions.list(id, 1, 1)
      expect([page.total, page.items.map((r) => r.revision)]).toEqual([3, [2]])
    })

    it('when a write fails, then its revision is not stored either (one transaction)', async () => {
      const store = await open()
      const id = await store.objects.create(draft('document', 'A', { nickname: 'a' }), 1)
      await store.objects.create(draft('document', 'B', { nickname: 'b' }), 1)
      await expect(store.objects.update(id, { nickname: 'b', columns: { title: 'A2' }, user_id: 1, extras: {} }, 2)).rejects.toBeInstanceOf(UniqueConflict)
      expect(await numbers(store, id)).toEqual([[1, ['title']]])
    })

    it('when REVISIONS_KEEP bounds them, then the oldest go and numbering goes on; 0 keeps none', async () => {
      const two = await open(2)
      const id = await two.objects.create(draft('document', 'v1'), 1)
      for (const title of ['v2', 'v3', 'v4']) await two.objects.update(id, { columns: { title }, user_id: 1, extras: {} }, 2)
      expect((await numbers(two, id)).map(([n]) => n)).toEqual([4, 3])
      expect(await two.revisions.get(id, 1)).toBeNull()
      const none = await open(0)
      const other = await none.objects.create(draft('document', 'x'), 1)
      await none.objects.update(other, { columns: { title: 'y' }, user_id: 1, extras: {} }, 2)
      expect(await none.revisions.list(other, 0, 10)).toEqual({ items: [], total: 0 })
    })

    it('when revisions are kept for none, then an update still records who could read the object before it (read for its event, not from a revision)', async () => {
      const none = await open(0)
      const id = await none.objects.create(draft('document', 'x', { read_groups: ['members'] }), 1)
      await none.objects.update(id, { status: 'off', columns: { start_date: 1_000 }, user_id: 1, extras: {} }, 2)
      await none.objects.update(id, { status: 'on', columns: { title: 'y' }, user_id: 1, extras: {} }, 3)
      const updates = (await none.changes.after(0, 100)).filter((e) => e.type === 'object.updated')
      expect(updates.map((e) => e.access?.before)).toEqual([
        { status: 'on', read_groups: ['members'], write_groups: [] },
        { status: 'off', read_groups: ['members'], write_groups: [], start_date: 1_000 },
      ])
    })

    it('when an object is purged from the trash, then its revisions go with it; trashed, they stay', async () => {
      const store = await open()
      const id = await store.objects.create(draft('document', 'gone'), 1)
      await store.trash.put(id, 1, 2)
      expect((await store.revisions.list(id, 0, 10)).total).toBe(1)
      await store.trash.purge(id)
      expect((await store.revisions.list(id, 0, 10)).total).toBe(0)
    })
  })
}
