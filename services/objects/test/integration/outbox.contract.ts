import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChangeEvent } from '../../src/core/change-events.js'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { UniqueConflict } from '../../src/core/conflicts.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { draft, type StoreFactory } from './store.contract.js'
import { PIC_FILE, keyOf } from './site.fixture.js'
import { must } from '../support/must.js'

/** What an event says and whom it affects, without its number and time. */
const said = (e: ChangeEvent) => [e.type, e.object_id, e.parent_id ?? e.related_id ?? null, e.affects]
const sorted = (...ids: number[]) => [...ids].sort((a, b) => a - b)

const brief = (e: ChangeEvent) => {
  const out: Record<string, unknown> = { type: e.type, object_id: e.object_id, object_type: e.object_type }
  if (e.parent_id !== undefined) Object.assign(out, { parent_id: e.parent_id, parent_type: e.parent_type })
  if (e.related_id !== undefined) Object.assign(out, { related_id: e.related_id, related_type: e.related_type, relation: e.relation })
  return out
}

/** The outbox every ObjectsStore adapter must keep (decisions §13). */
export function describeOutboxContract (name: string, factory: StoreFactory): void {
  describe(`outbox contract: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    beforeEach(async () => { ({ store, cleanup } = await factory()) })
    afterEach(async () => { await cleanup() })

    const since = async (seq: number) => store.changes.after(seq, 1_000)

    /** publication 1 > section s > section t; document d under t, related to image i */
    async function site () {
      const s = await store.objects.create({ ...draft('section', 'S'), links: { parents: [1], relations: [] } }, 10)
      const t = await store.objects.create({ ...draft('section', 'T'), links: { parents: [s], relations: [] } }, 10)
      const i = await store.objects.create(draft('image', 'I'), 10)
      const d = await store.objects.create({
        ...draft('document', 'D'), links: { parents: [t], relations: [{ name: 'attach', inverse: 'attached_to', related_id: i, priority: null, params: null }] },
      }, 10)
      return { s, t, i, d }
    }

    it('when a store is new, then its outbox is empty and numbering starts after 0', async () => {
      expect(await store.changes.bounds()).toEqual({ first: null, last: 0 })
      expect(store.committedSeq()).toBe(0)
      expect(await since(0)).toEqual([])
    })

    it('when an object is created with parents and relations, then one event per change, numbered in order, with ids and types only', async () => {
      const { t, i, d } = await site()
      const events = await since(0)
      expect(events.map((e) => e.seq)).toEqual(events.map((_, n) => n + 1))
      expect(events.slice(-3).map(brief)).toEqual([
        { type: 'object.created', object_id: d, object_type: 'document' },
        { type: 'child.added', object_id: d, object_type: 'document', parent_id: t, parent_type: 'section' },
        { type: 'relation.created', object_id: d, object_type: 'document', related_id: i, related_type: 'image', relation: 'attach' },
      ])
      const created = events.slice(-3)
      for (const e of created) {
        expect(e.at).toBe(must(created[0]).at) // one transaction, one commit time
        expect(Math.abs(e.at - Date.now())).toBeLessThan(60_000)
        expect(JSON.stringify(e)).not.toMatch(/"title"|"D"|"nickname"/)
      }
      expect(store.committedSeq()).toBe(events.length)
      expect(await store.changes.bounds()).toEqual({ first: 1, last: events.length })
    })

    it('when an object is created with links, then the object alone is affected by its creation and its links affect their ends', async () => {
      const { s, t, i, d } = await site()
      expect((await since(0)).slice(-3).map(said)).toEqual([
        ['object.created', d, null, [d]],
        ['child.added', d, t, sorted(1, s, t, d)],
        ['relation.created', d, i, sorted(d, i)],
      ])
    })

    it('when an update attaches a file and adds links, then its own events have the surroundings the write left, old links and new, and come before the links\' events', async () => {
      const { s, t, i, d } = await site()
      const u = await store.objects.create({ ...draft('section', 'U'), links: { parents: [1], relations: [] } }, 10)
      const j = await store.objects.create(draft('image', 'J'), 10)
      const hash = keyOf('update-token')
      await store.uploads.add({ token_hash: hash, user_id: 7, object_type: 'image', file: PIC_FILE, expires_at: Date.now() + 60_000 }, Date.now())
      const before = store.committedSeq()
      const attach = (related_id: number) => ({ name: 'attach', inverse: 'attached_to', related_id, priority: null, params: null })
      expect(await store.objects.update(d, {
        columns: { file: PIC_FILE }, user_id: 7, extras: {}, claim: { token_hash: hash, now: Date.now() },
        links: { parents: [t, u], relations: [attach(i), attach(j)] },
      }, 20)).toBe(true)
      // t was a parent already: no event; i was related already: updated. A save only adds links, so the
      // surroundings after it hold those before it too; the access holds the parents it left (a live stream's filter[parent])
      const events = await since(before)
      expect(events.map(said)).toEqual([
        ['object.updated', d, null, sorted(1, s, t, u, i, j, d)],
        ['file.changed', d, null, sorted(1, s, t, u, i, j, d)],
        ['child.added', d, u, sorted(1, u, d)],
        ['relation.updated', d, i, sorted(d, i)],
        ['relation.created', d, j, sorted(d, j)],
      ])
      expect(events[0]?.access?.parents).toEqual([t, u])
    })

    it('when children are saved, moved and removed, then each event affects the child, the parent and its ancestors', async () => {
      const { s, t, i, d } = await site()
      const before = store.committedSeq()
      await store.tree.addChildren(t, [{ child_id: i, priority: null }, { child_id: d, priority: 4 }])
      await store.tree.setPriority(t, i, 9)
      await store.tree.removeChild(t, i)
      expect((await since(before)).map(said)).toEqual([
        ['child.added', i, t, sorted(1, s, t, i)],
        ['child.updated', d, t, sorted(1, s, t, d)],
        ['child.updated', i, t, sorted(1, s, t, i)],
        ['child.removed', i, t, sorted(1, s, t, i)],
      ])
    })

    it('when fixtures are imported, then every object is created, then placed, then related, each at the moment it is done', async () => {
      const { s, t, d } = await site()
      const planned = planFixtures(JSON.stringify({
        objects: [
          // placed under b before b itself is placed under t: that event affects a and b alone
          { ref: 'a', object_type: 'document', title: 'A', parents: ['b', t], relations: { attach: [{ related: 'c' }], seealso: [{ related: d }] } },
          { ref: 'b', object_type: 'section', title: 'B', parents: [t] },
          { ref: 'c', object_type: 'image', title: 'C' },
        ],
      }), [], PUBLICATION_ID)
      if (!planned.ok) throw new Error(planned.errors.join('; '))
      const before = store.committedSeq()
      const refs = await store.applyFixtures(planned.plan, 10)
      const [a, b, c] = [must(refs.a), must(refs.b), must(refs.c)]
      const events = await since(before)
      expect(events.map(said)).toEqual([
        ['object.created', a, null, [a]],
        ['object.created', b, null, [b]],
        ['object.created', c, null, [c]],
        ['child.added', a, b, sorted(a, b)],
        ['child.added', a, t, sorted(1, s, t, a)],
        ['child.added', b, t, sorted(1, s, t, b)],
        ['relation.created', a, c, sorted(a, c)],
        ['relation.created', a, d, sorted(a, d)],
      ])
      expect(events.map(brief).slice(-2)).toEqual([
        { type: 'relation.created', object_id: a, object_type: 'document', related_id: c, related_type: 'image', relation: 'attach' },
        { type: 'relation.created', object_id: a, object_type: 'document', related_id: d, related_type: 'document', relation: 'seealso' },
      ])
      expect(store.committedSeq()).toBe(must(events.at(-1)).seq)
    })

    it('when a tree edge changes, then it affects the child, the parent and every ancestor of the parent', async () => {
      const { s, t, d } = await site()
      const added = must((await since(0)).find((e) => e.type === 'child.added' && e.object_id === d))
      expect(added.affects).toEqual([1, s, t, d].sort((a, b) => a - b))
    })

    it('when an object itself changes, then it affects its ancestors, parents and related objects too', async () => {
      const { s, t, i, d } = await site()
      const before = store.committedSeq()
      expect(await store.objects.update(d, { columns: { title: 'D2' }, user_id: 7, extras: {} }, 20)).toBe(true)
      const [updated] = await since(before)
      expect(brief(must(updated))).toEqual({ type: 'object.updated', object_id: d, object_type: 'document' })
      expect(must(updated).affects).toEqual([1, s, t, i, d].sort((a, b) => a - b))
    })

    it('when an object is deleted, then its event is recorded with the surroundings it had', async () => {
      const { s, t, i, d } = await site()
      const before = store.committedSeq()
      expect(await store.objects.remove(d)).toBe('removed')
      const events = await since(before)
      expect(events.map(brief)).toEqual([{ type: 'object.deleted', object_id: d, object_type: 'document' }])
      expect(must(events[0]).affects).toEqual([1, s, t, i, d].sort((a, b) => a - b))
      expect(await store.objects.remove(d)).toBe('absent')
      expect(await since(before)).toHaveLength(1)
    })

    it('when children, relations and permissions are written, then each write says what it did', async () => {
      const { s, t, i, d } = await site()
      const before = store.committedSeq()
      await store.tree.addChildren(s, [{ child_id: d, priority: null }, { child_id: t, priority: 5 }])
      await store.tree.setPriority(s, d, 9)
      await store.tree.removeChild(s, d)
      expect(await store.tree.removeChild(s, d)).toBe('absent')
      await store.relations.save(d, 'attach', 'attached_to', [{ related_id: i, priority: 3, params: null }])
      await store.relations.replace(d, 'attach', 'attached_to', { related_id: i, priority: 4, params: null })
      await store.relations.remove(d, 'attach', 'attached_to', i)
      expect(await store.relations.remove(d, 'attach', 'attached_to', i)).toBe('absent')
      await store.objects.setPermissions(d, ['members'], [])
      expect(await store.objects.setPermissions(999, [], [])).toBe(false)
      expect((await since(before)).map((e) => [e.type, e.object_id, e.parent_id ?? e.related_id ?? null])).toEqual([
        ['child.added', d, s], ['child.updated', t, s], ['child.updated', d, s], ['child.removed', d, s],
        ['relation.updated', d, i], ['relation.updated', d, i], ['relation.deleted', d, i],
        ['permissions.changed', d, null],
      ])
    })

    it('when an object changes, then each event records its access as the change left it, a removal its access just before', async () => {
      const { s, t, i, d } = await site()
      const before = store.committedSeq()
      await store.objects.setPermissions(d, ['members'], ['editors'])
      await store.objects.update(d, { status: 'draft', columns: { start_date: 1_000, end_date: 2_000 }, user_id: 7, extras: {} }, 20)
      await store.trash.put(d, 7, 30)
      const events = await since(before)
      expect(events.map((e) => [e.type, e.access])).toEqual([
        ['permissions.changed', { status: 'on', read_groups: ['members'], write_groups: ['editors'], parents: [t], ancestors: sorted(1, s, t) }],
        ['object.updated', { status: 'draft', read_groups: ['members'], write_groups: ['editors'], start_date: 1_000, end_date: 2_000, parents: [t], ancestors: sorted(1, s, t) }],
        ['object.trashed', { status: 'draft', read_groups: ['members'], write_groups: ['editors'], start_date: 1_000, end_date: 2_000, parents: [t], ancestors: sorted(1, s, t) }],
      ].map(([type, access]) => [type, expect.objectContaining({ ...(access as object), ancestors: expect.arrayContaining((access as { ancestors: number[] }).ancestors) })]))
      for (const e of events) expect(must(e.access).ancestors).toHaveLength(3)
      // the image was never placed: no parents, no ancestors
      expect((await since(0)).find((e) => e.type === 'object.created' && e.object_id === i)?.access).toEqual({ status: 'on', read_groups: [], write_groups: [], parents: [], ancestors: [] })
      await store.trash.purge(d)
      expect((await since(before)).at(-1)).toMatchObject({ type: 'object.deleted', object_id: d })
      expect((await since(before)).at(-1)?.access).toBeUndefined()
    })

    it('when an update or a permissions change may take an object away, then its event records who could read it just before the write', async () => {
      const { d } = await site()
      const before = store.committedSeq()
      await store.objects.setPermissions(d, ['members'], ['editors'])
      await store.objects.update(d, { status: 'draft', columns: { start_date: 1_000, end_date: 2_000 }, user_id: 7, extras: {} }, 20)
      await store.objects.update(d, { status: 'on', columns: { title: 'again' }, user_id: 7, extras: {} }, 30)
      await store.trash.put(d, 7, 40)
      expect((await since(before)).map((e) => [e.type, e.access?.before])).toEqual([
        ['permissions.changed', { status: 'on', read_groups: [], write_groups: [] }],
        ['object.updated', { status: 'on', read_groups: ['members'], write_groups: ['editors'] }],
        ['object.updated', { status: 'draft', read_groups: ['members'], write_groups: ['editors'], start_date: 1_000, end_date: 2_000 }],
        // a removal's own access is the one just before it
        ['object.trashed', undefined],
      ])
    })

    it('when an edge changes, then its event records who may read its other end as well, so a stream tells it only to those who may read both', async () => {
      const { s, t, i, d } = await site()
      await store.objects.setPermissions(i, ['members'], [])
      await store.objects.update(t, { status: 'draft', columns: { end_date: 5_000 }, user_id: 7, extras: {} }, 20)
      const before = store.committedSeq()
      await store.relations.replace(d, 'attach', 'attached_to', { related_id: i, priority: 2, params: null })
      await store.tree.setPriority(t, d, 3)
      await store.tree.addChildren(s, [{ child_id: d, priority: 1 }])
      const events = await since(before)
      expect(events.map((e) => [e.type, e.object_id, e.parent_id ?? e.related_id, e.access?.other])).toEqual([
        ['relation.updated', d, i, { status: 'on', read_groups: ['members'], write_groups: [] }],
        ['child.updated', d, t, { status: 'draft', read_groups: [], write_groups: [], end_date: 5_000 }],
        ['child.added', d, s, { status: 'on', read_groups: [], write_groups: [] }],
      ])
      // an object's own event has no other end
      expect((await since(0)).filter((e) => e.type.startsWith('object.') && e.access?.other !== undefined)).toEqual([])
    })

    it('when a write fails, then it records nothing', async () => {
      await store.objects.create(draft('document', 'A', { nickname: 'taken' }), 10)
      const before = store.committedSeq()
      await expect(store.objects.create(draft('document', 'B', { nickname: 'taken' }), 10)).rejects.toBeInstanceOf(UniqueConflict)
      expect(await since(before)).toEqual([])
      expect((await store.changes.bounds()).last).toBe(before)
    })

    it('when events are pruned, then the old ones go, the newer and the protected stay, and numbering goes on', async () => {
      await store.objects.create(draft('document', 'A'), 10)
      await store.objects.create(draft('document', 'B'), 10)
      const old = await since(0)
      await store.objects.create(draft('document', 'C'), 10)
      const all = await since(0)
      const cut = Math.max(...old.map((e) => e.at)) + 1
      // the protected number keeps the first event of the second write
      expect(await store.changes.prune(cut, must(old[0]).seq)).toBe(1)
      expect((await since(0)).map((e) => e.seq)).toEqual(all.slice(1).map((e) => e.seq))
      expect(await store.changes.prune(Number.MAX_SAFE_INTEGER, 0)).toBe(0)
      expect(await store.changes.prune(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).toBe(all.length - 1)
      expect(await store.changes.bounds()).toEqual({ first: null, last: all.length })
      await store.objects.create(draft('document', 'D'), 10)
      expect((await since(0)).map((e) => e.seq)).toEqual([all.length + 1])
    })
  })
}
