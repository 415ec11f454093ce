import { DomainError } from '@content/platform'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listObjects } from '../../src/core/objects.reader.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { ReadDeps } from '../../src/core/read-context.js'
import { stillWantedBy } from '../../src/core/still-wanted.js'
import { draft, type StoreFactory } from './store.contract.js'

/** The store with every port method counting its calls. */
function counting (store: ObjectsStore): { store: ObjectsStore, calls: () => number } {
  let calls = 0
  const wrap = <P extends object>(port: P): P => new Proxy(port, {
    get (target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      return typeof value === 'function' ? (...args: unknown[]) => { calls++; return value.apply(target, args) } : value
    },
  })
  return {
    store: { ...store, objects: wrap(store.objects), tree: wrap(store.tree), relations: wrap(store.relations), lists: wrap(store.lists) },
    calls: () => calls,
  }
}

/** Includes read a bounded number of times per page whatever its size, in relation order: on every store. */
export function describeIncludesContract (name: string, factory: StoreFactory): void {
  describe(`include (decisions §15): store reads per page: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    beforeAll(async () => {
      ({ store, cleanup } = await factory())
      const section = await store.objects.create(draft('section', 'Docs'), 1)
      await store.tree.addChildren(PUBLICATION_ID, [{ child_id: section, priority: null }])
      for (let i = 0; i < 30; i++) {
        const doc = await store.objects.create(draft('document', `Doc ${i}`), 1)
        const image = await store.objects.create(draft('image', `Image ${i}`), 1)
        const file = await store.objects.create(draft('b_e_file', `File ${i}`), 1)
        await store.tree.addChildren(section, [{ child_id: doc, priority: null }])
        await store.relations.save(doc, 'poster', 'poster_of', [{ related_id: image, priority: null, params: null }])
        await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: image, priority: 1, params: null }, { related_id: file, priority: 2, params: null }])
      }
    })
    afterAll(async () => { await cleanup() })

    async function readsFor (pageSize: number, include: string[]): Promise<{ calls: number, included: number }> {
      const counted = counting(store)
      const deps: ReadDeps = { store: counted.store, now: () => 1, visibility: { visibleStatuses: ['on'], windowFilter: false } }
      const list = await listObjects(deps, { user_id: 0, groups: [] }, { page: 1, page_size: pageSize }, { object_types: ['document'] }, { include, include_limit: 5 })
      expect(list.objects).toHaveLength(pageSize)
      const included = list.objects.flatMap((o) => o.relations.flatMap((r) => r.objects ?? [])).length
      return { calls: counted.calls(), included }
    }

    it('when a page includes relations two levels deep, then the store is read the same number of times for 3 objects as for 30', async () => {
      const include = ['poster', 'attach.poster_of']
      const small = await readsFor(3, include)
      const large = await readsFor(30, include)
      expect(large.included).toBe(10 * small.included)
      expect(small.included).toBeGreaterThan(0)
      expect(large.calls).toBe(small.calls)
      // and a bounded number: a fixed set per step on top of the page itself
      const plain = await readsFor(30, [])
      expect(large.calls - plain.calls).toBeLessThanOrEqual(3 * 6)
    })

    it('when include_limit is below a relation\'s size, then each object gets that many related objects, the first in relation order', async () => {
      const deps: ReadDeps = { store, now: () => 1, visibility: { visibleStatuses: ['on'], windowFilter: false } }
      const read = async (limit: number) => (await listObjects(deps, { user_id: 0, groups: [] }, { page: 1, page_size: 4 }, { object_types: ['document'] }, { include: ['attach'], include_limit: limit })).objects
        .map((o) => o.relations.find((r) => r.name === 'attach')?.objects?.map((x) => [x.object_type, x.relation?.priority]))
      expect(await read(1)).toEqual(Array.from({ length: 4 }, () => [['image', 1]]))
      expect(await read(2)).toEqual(Array.from({ length: 4 }, () => [['image', 1], ['b_e_file', 2]]))
      expect(await read(50)).toEqual(await read(2))
    })

    it('when a page with include passes the include budget, then it is refused naming include_limit before any store read', async () => {
      const counted = counting(store)
      const deps: ReadDeps = { store: counted.store, now: () => 1, visibility: { visibleStatuses: ['on'], windowFilter: false } }
      const list = (pageSize: number, include: string[], limit: number, d: ReadDeps = deps) =>
        listObjects(d, { user_id: 0, groups: [] }, { page: 1, page_size: pageSize }, { object_types: ['document'] }, { include, include_limit: limit })
      const refused = { reason: 'INVALID_PARAMETER', details: { parameter: 'include_limit' } }
      await expect(list(100, ['attach.poster_of'], 50)).rejects.toMatchObject(refused)
      await expect(list(100, ['attach', 'poster'], 26)).rejects.toMatchObject(refused)
      expect(counted.calls()).toBe(0)
      expect((await list(100, ['attach', 'poster'], 25)).objects).toHaveLength(30)
      // the configured budget decides
      await expect(list(10, ['attach', 'poster'], 25, { ...deps, includeBudget: 499 })).rejects.toMatchObject(refused)
    })

    it('when the caller gives up while includes are built, then the read stops at the next batch and reads nothing more', async () => {
      const counted = counting(store)
      let gone = false
      let callsWhenGone = -1
      const relations = new Proxy(counted.store.relations, {
        get (target, name, receiver) {
          const value = Reflect.get(target, name, receiver)
          if (name !== 'firstOf' || typeof value !== 'function') return value
          // the deadline passes while the first level's relations are read
          return async (...args: unknown[]) => { const rows = await value.apply(target, args); gone = true; callsWhenGone = counted.calls(); return rows }
        },
      })
      const deps: ReadDeps = {
        store: { ...counted.store, relations }, now: () => 1, visibility: { visibleStatuses: ['on'], windowFilter: false },
        stillWanted: stillWantedBy(() => ({ deadlineMs: gone ? 0 : Infinity, cancelled: false })),
      }
      const read = listObjects(deps, { user_id: 0, groups: [] }, { page: 1, page_size: 30 }, { object_types: ['document'] }, { include: ['poster', 'attach.poster_of'], include_limit: 5 })
      await expect(read).rejects.toBeInstanceOf(DomainError)
      await expect(read).rejects.toMatchObject({ reason: 'BACKEND_TIMEOUT' })
      expect(callsWhenGone).toBeGreaterThan(0)
      expect(counted.calls()).toBe(callsWhenGone)
      // cancelled: the same, as REQUEST_CANCELLED
      const cancelled: ReadDeps = { ...deps, store: counted.store, stillWanted: stillWantedBy(() => ({ deadlineMs: Infinity, cancelled: true })) }
      await expect(listObjects(cancelled, { user_id: 0, groups: [] }, { page: 1, page_size: 30 }, { object_types: ['document'] }, { include: ['poster'], include_limit: 5 }))
        .rejects.toMatchObject({ reason: 'REQUEST_CANCELLED' })
    })
  })
}
