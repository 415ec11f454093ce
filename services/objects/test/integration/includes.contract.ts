import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listObjects } from '../../src/core/objects.reader.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { ReadDeps } from '../../src/core/read-context.js'
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
  })
}
