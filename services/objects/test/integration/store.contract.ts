import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS, type ObjectWrite } from '../../src/core/object-input.js'
import type { ObjectTypeName } from '../../src/core/object-types.js'
import type { ListFilter, MediaFileRecord, Visibility } from '../../src/core/types.js'
import { IDEMPOTENCY_WINDOW_MS, type IdempotencyClaim } from '../../src/core/idempotency.js'
import type { ListQuery, ObjectsStore, PendingUpload } from '../../src/core/ports.js'
import { IdempotencyKeyTaken, TargetGone, UniqueConflict, UploadClaimConflict } from '../../src/core/conflicts.js'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { keyOf } from './site.fixture.js'
import { must } from '../support/must.js'

export type StoreFactory = () => Promise<{ store: ObjectsStore, cleanup: () => Promise<void> }>

const everyone: Visibility = { statuses: ['on'], at: null, groups: [] }
const noFilter: ListFilter = { object_types: [], query: '' }
const q = (over: Partial<ListQuery> = {}): ListQuery => ({ visibility: everyone, filter: noFilter, offset: 0, limit: 100, ...over })

const [K1, K2, K3] = [keyOf('one'), keyOf('two'), keyOf('three')]
const fileOf = (key: string): MediaFileRecord => ({ key, name: `${key.slice(0, 6)}.png`, mime_type: 'image/png', size: 99, width: 3, height: 2 })
const pending = (tokenHash: string, key: string, expiresAt: number): PendingUpload =>
  ({ token_hash: tokenHash, user_id: 7, object_type: 'image', file: fileOf(key), expires_at: expiresAt })
const withFile = (title: string, key: string) => ({ columns: { ...DEFAULT_COLUMNS, title, file: fileOf(key) } })

/** MongoDB tells listeners of other processes' writes through a change stream: give it time to speak. */
const settle = async (store: ObjectsStore) => {
  if (store.kind === 'mongodb') await new Promise((resolve) => setTimeout(resolve, 500))
}

export function draft (object_type: ObjectTypeName, title: string | null, over: Partial<ObjectWrite> = {}): ObjectWrite {
  return { object_type, nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 7, extras: {}, ...over }
}

/** The behaviour every ObjectsStore adapter must share. */
export function describeObjectsStoreContract (name: string, factory: StoreFactory): void {
  describe(`ObjectsStore contract: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    let changes: number
    beforeEach(async () => {
      ({ store, cleanup } = await factory())
      changes = 0
      store.onChange(() => { changes++ })
    })
    afterEach(async () => { await cleanup() })

    it('when the store is new, then the publication is object 1, an area, status on', async () => {
      const pub = await store.objects.get({ id: 1 })
      expect(pub).toMatchObject({ id: 1, object_type: 'area', nickname: 'publication', status: 'on', title: 'Publication' })
      expect(await store.objects.get({ nickname: 'publication' })).toMatchObject({ id: 1 })
    })

    it('when objects are created, then ids come from one sequence and nicknames are generated and unique', async () => {
      const a = await store.objects.create(draft('document', 'Héllo World!'), 1000)
      const b = await store.objects.create(draft('document', 'Hello world'), 1000)
      const c = await store.objects.create(draft('image', null), 1000)
      const d = await store.objects.create(draft('document', '2024'), 1000)
      expect([a, b, c, d]).toEqual([2, 3, 4, 5])
      const rows = await store.objects.listByIds([a, b, c, d])
      const nick = new Map(rows.map((r) => [r.id, r.nickname]))
      expect([nick.get(a), nick.get(b), nick.get(c), nick.get(d)]).toEqual(['hello-world', 'hello-world-1', 'image-4', 'n2024'])
      expect(changes).toBe(4)
    })

    it('when an explicit nickname is taken, then create fails with UniqueConflict and nothing is written', async () => {
      await store.objects.create(draft('document', 'x', { nickname: 'same' }), 1)
      await expect(store.objects.create(draft('document', 'y', { nickname: 'same' }), 1)).rejects.toBeInstanceOf(UniqueConflict)
      expect(await store.objects.get({ id: 3 })).toBeNull()
    })

    it('when children are added, then they list by priority then id, appended when no priority', async () => {
      const s = await store.objects.create(draft('section', 'S'), 1)
      await store.tree.addChildren(1, [{ child_id: s, priority: null }])
      const [x, y, z] = [await store.objects.create(draft('document', 'x'), 1), await store.objects.create(draft('document', 'y'), 1), await store.objects.create(draft('document', 'z'), 1)]
      const saved = await store.tree.addChildren(s, [{ child_id: z, priority: 5 }, { child_id: x, priority: null }, { child_id: y, priority: 5 }])
      expect(saved).toEqual([{ child_id: z, priority: 5, created: true }, { child_id: x, priority: 6, created: true }, { child_id: y, priority: 5, created: true }])
      expect((await store.tree.children(s, 'all', q())).ids).toEqual([y, z, x])
      const again = await store.tree.addChildren(s, [{ child_id: x, priority: 1 }])
      expect(again).toEqual([{ child_id: x, priority: 1, created: false }])
      expect((await store.tree.children(s, 'all', q())).ids).toEqual([x, y, z])
      expect(await store.tree.position(s, x)).toBe(1)
      expect(await store.tree.position(1, x)).toBeNull()
    })

    it('when a tree has several paths, then descendants are listed once and survive removing one path', async () => {
      const s1 = await store.objects.create(draft('section', 'S1'), 1)
      const s2 = await store.objects.create(draft('section', 'S2'), 1)
      const doc = await store.objects.create(draft('document', 'D'), 1)
      await store.tree.addChildren(1, [{ child_id: s1, priority: 2 }])
      await store.tree.addChildren(s1, [{ child_id: s2, priority: 1 }])
      await store.tree.addChildren(1, [{ child_id: doc, priority: 9 }])
      await store.tree.addChildren(s2, [{ child_id: doc, priority: 1 }])
      expect((await store.tree.descendants(1, 'tree', q())).ids).toEqual([s2, doc, s1])
      expect((await store.tree.descendants(1, 'id', q())).ids).toEqual([s1, s2, doc])
      expect(await store.tree.removeChild(1, doc)).toBe('removed')
      expect(await store.tree.removeChild(1, doc)).toBe('absent')
      expect((await store.tree.descendants(1, 'id', q())).total).toBe(3)
      expect(await store.tree.isAncestor(1, doc)).toBe(true)
      expect(await store.tree.removeChild(s2, doc)).toBe('removed')
      expect(await store.tree.isAncestor(1, doc)).toBe(false)
      expect(await store.tree.parents(doc)).toEqual([])
    })

    it('when an object sits under several parents, then the first placed is its first parent', async () => {
      const s1 = await store.objects.create(draft('section', 'S1'), 1)
      const s2 = await store.objects.create(draft('section', 'S2'), 1)
      const doc = await store.objects.create(draft('document', 'D'), 1)
      await store.tree.addChildren(1, [{ child_id: s1, priority: null }, { child_id: s2, priority: null }])
      await store.tree.addChildren(s2, [{ child_id: doc, priority: null }])
      await store.tree.addChildren(s1, [{ child_id: doc, priority: null }])
      expect(await store.tree.parents(doc)).toEqual([s2, s1])
      expect(await store.tree.ancestors(doc)).toEqual([1, s2])
      expect(must((await store.objects.details([doc])).get(doc)).parent_ids).toEqual([s2, s1])
    })

    it('when lists are asked with a visibility and a filter, then they count and page only what is admitted', async () => {
      const ids: number[] = []
      for (const [type, title, status, groups] of [['document', 'Alpha', 'on', []], ['image', 'Beta', 'on', []], ['document', 'Gamma', 'draft', []], ['document', 'Delta alpha', 'on', ['members']]] as const) {
        const id = await store.objects.create(draft(type, title, { status, read_groups: [...groups] }), 1)
        ids.push(id)
      }
      await store.tree.addChildren(1, ids.map((child_id) => ({ child_id, priority: null })))
      expect(await store.tree.children(1, 'all', q())).toEqual({ ids: [ids[0], ids[1]], total: 2 })
      const member = { ...everyone, groups: ['members'] }
      expect((await store.tree.children(1, 'all', q({ visibility: member }))).total).toBe(3)
      expect((await store.tree.children(1, 'all', q({ visibility: { ...member, statuses: ['on', 'draft'] } }))).total).toBe(4)
      expect((await store.tree.children(1, 'all', q({ visibility: member, filter: { object_types: [], query: 'ALPHA' } }))).ids).toEqual([ids[0], ids[3]])
      expect((await store.tree.children(1, 'all', q({ filter: { object_types: ['image'], query: '' } }))).ids).toEqual([ids[1]])
      expect(await store.tree.children(1, 'all', q({ offset: 1, limit: 1 }))).toEqual({ ids: [ids[1]], total: 2 })
      expect(await store.tree.children(1, 'all', q({ offset: 10, limit: 5 }))).toEqual({ ids: [], total: 2 })
      expect((await store.tree.children(1, 'all', q({ exclude: ids[0] }))).ids).toEqual([ids[1]])
      expect((await store.tree.childCounts([1], member)).get(1)).toEqual({ sections: 0, contents: 3 })
      // decisions §7: an administrator in no read group reads the protected object too, in pages and counts
      const administrator = { ...everyone, groups: ['administrator'] }
      expect(await store.tree.children(1, 'all', q({ visibility: administrator }))).toEqual({ ids: [ids[0], ids[1], ids[3]], total: 3 })
      expect((await store.tree.descendants(1, 'id', q({ visibility: administrator }))).total).toBe(3)
      expect((await store.tree.childCounts([1], administrator)).get(1)).toEqual({ sections: 0, contents: 3 })
    })

    it('when the publication window is applied, then objects outside it are left out', async () => {
      const past = await store.objects.create(draft('document', 'old', { columns: { ...DEFAULT_COLUMNS, end_date: 100 } }), 1)
      const future = await store.objects.create(draft('document', 'new', { columns: { ...DEFAULT_COLUMNS, start_date: 900 } }), 1)
      const now = await store.objects.create(draft('document', 'now', { columns: { ...DEFAULT_COLUMNS, start_date: 100, end_date: 900 } }), 1)
      await store.tree.addChildren(1, [past, future, now].map((child_id) => ({ child_id, priority: null })))
      expect((await store.tree.children(1, 'all', q({ visibility: { ...everyone, at: 500 } }))).ids).toEqual([now])
      expect((await store.tree.children(1, 'all', q())).total).toBe(3)
      expect(await store.objects.windowDates(500)).toEqual({ starts: [900], ends: [900] })
    })

    it('when a relation is saved, then the inverse row exists, priorities follow max+1 and delete removes both', async () => {
      const doc = await store.objects.create(draft('document', 'D'), 1)
      const img1 = await store.objects.create(draft('image', 'I1'), 1)
      const img2 = await store.objects.create(draft('image', 'I2'), 1)
      const saved = await store.relations.save(doc, 'attach', 'attached_to', [
        { related_id: img1, priority: null, params: '{"a":1}' }, { related_id: img2, priority: null, params: null }])
      expect(saved).toEqual([{ related_id: img1, priority: 1, params: '{"a":1}', created: true }, { related_id: img2, priority: 2, params: null, created: true }])
      expect(await store.relations.get(img1, 'attached_to', doc)).toEqual({ related_id: doc, priority: 1, params: '{"a":1}' })
      const updated = await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: img1, priority: 7, params: null }])
      expect(updated[0]).toMatchObject({ created: false, priority: 7, params: '{"a":1}' })
      expect((await store.relations.list(doc, 'attach', q())).items.map((i) => i.related_id)).toEqual([img2, img1])
      expect((await store.relations.counts([doc, img1], everyone)).get(img1)).toEqual(new Map([['attached_to', 1]]))
      expect(await store.relations.replace(doc, 'attach', 'attached_to', { related_id: img1, priority: null, params: null })).toBe(true)
      expect(await store.relations.get(img1, 'attached_to', doc)).toMatchObject({ params: null })
      expect(await store.relations.remove(doc, 'attach', 'attached_to', img1)).toBe('removed')
      expect(await store.relations.remove(doc, 'attach', 'attached_to', img1)).toBe('absent')
      expect(await store.relations.get(img1, 'attached_to', doc)).toBeNull()
    })

    it('when an object is deleted, then its tree rows and relations both ways go with it', async () => {
      const s = await store.objects.create(draft('section', 'S'), 1)
      const doc = await store.objects.create(draft('document', 'D'), 1)
      const img = await store.objects.create(draft('image', 'I'), 1)
      await store.tree.addChildren(1, [{ child_id: s, priority: null }])
      await store.tree.addChildren(s, [{ child_id: doc, priority: null }])
      await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: img, priority: null, params: null }])
      expect(await store.objects.remove(doc)).toBe('removed')
      expect(await store.objects.remove(doc)).toBe('absent')
      expect((await store.tree.descendants(1, 'id', q())).ids).toEqual([s])
      expect((await store.relations.counts([img], everyone)).get(img)).toBeUndefined()
    })

    it('when languages, translated fields and custom properties are named as what every object has, then each reads back as written', async () => {
      const languages = { constructor: { title: 'a', toString: 'b' }, hasOwnProperty: { title: 'c' }, toString: { valueOf: 'd' } }
      const doc = await store.objects.create(draft('document', 'D', { extras: { languages, custom_properties: { constructor: 'e', valueOf: 'f' } } }), 1)
      const d = must((await store.objects.details([doc])).get(doc))
      expect(JSON.parse(JSON.stringify(d.languages))).toEqual(languages)
      expect(d.custom_properties).toEqual({ constructor: 'e', valueOf: 'f' })
      expect(Object.hasOwn(Object, 'title')).toBe(false)
    })

    it('when extras are written, then details return them batched per object', async () => {
      const doc = await store.objects.create(draft('event', 'E', {
        extras: {
          languages: { it: { title: 'Ciao' } }, custom_properties: { color: 'red' }, tags: ['b', 'a'],
          geo_tags: [{ title: 'here', address: 'Main St', latitude: 1.5, longitude: 2.5, gmaps_lookats: null }],
          date_items: [{ start_date: 10, end_date: 20, days: [1, 3] }],
        },
      }), 1)
      const d = must((await store.objects.details([doc, 1])).get(doc))
      expect(d.languages).toEqual({ it: { title: 'Ciao' } })
      expect(d.custom_properties).toEqual({ color: 'red' })
      expect(d.tags).toEqual([{ name: 'a', label: 'a' }, { name: 'b', label: 'b' }])
      expect(d.geo_tags[0]).toMatchObject({ object_id: doc, latitude: 1.5, address: 'Main St' })
      expect(d.date_items).toEqual([{ start_date: 10, end_date: 20, days: [1, 3] }])
    })

    it('when objects carry every kind of detail, then the details of each alone and of a batch are the same, each part in its order', async () => {
      const geo = (title: string, lookats: boolean) => ({
        title, address: `${title} St`, latitude: 1.5, longitude: 2.5,
        ...(lookats ? { gmaps_lookats: { zoom: 3, mapType: 'k', latitude: 1, longitude: 2, range: 9 } } : {}),
      })
      const rich = (ref: string, parents: (string | number)[]) => ({
        ref, object_type: 'event', title: ref, parents,
        languages: { it: { title: 'Ciao', description: 'Descrizione' }, de: { title: 'Hallo' } },
        custom_properties: { zeta: 'z', alpha: 'a' }, tags: ['b', 'c', 'a'], categories: ['zeta', 'alpha'],
        geo_tags: [geo('here', true), geo('there', false)],
        date_items: [
          { start_date: '2026-03-01T10:00:00+0000', end_date: null, days: [3, 1] },
          { start_date: '2026-01-01T10:00:00+0000', end_date: '2026-01-02T10:00:00+0000' },
        ],
      })
      const planned = planFixtures(JSON.stringify({
        categories: [{ name: 'zeta', label: 'Zeta' }, { name: 'alpha', label: 'Alpha' }],
        objects: [
          { ref: 's', object_type: 'section', title: 's', parents: [PUBLICATION_ID] },
          rich('a', ['s', PUBLICATION_ID]), rich('b', [PUBLICATION_ID, 's']),
        ],
      }), [], PUBLICATION_ID)
      if (!planned.ok) throw new Error(planned.errors.join('; '))
      const refs = await store.applyFixtures(planned.plan, 1)
      const [a, b, s] = [must(refs.a), must(refs.b), must(refs.s)]
      const batch = await store.objects.details([a, PUBLICATION_ID, b])
      for (const id of [a, b, PUBLICATION_ID]) {
        const alone = must((await store.objects.details([id])).get(id))
        // key order too: the gateway writes these maps as they come
        expect(JSON.stringify(alone), `object ${id}`).toBe(JSON.stringify(batch.get(id)))
      }
      const d = must(batch.get(a))
      expect(Object.keys(d.languages)).toEqual(['de', 'it'])
      expect(Object.keys(d.languages.it ?? {})).toEqual(['description', 'title'])
      expect(Object.keys(d.custom_properties)).toEqual(['alpha', 'zeta'])
      expect(d.tags.map((t) => t.name)).toEqual(['a', 'b', 'c'])
      expect(d.categories.map((c) => [c.name, c.label])).toEqual([['alpha', 'Alpha'], ['zeta', 'Zeta']])
      expect(d.geo_tags.map((g) => [g.title, g.object_id, g.gmaps_lookats?.zoom ?? null])).toEqual([['here', a, 3], ['there', a, null]])
      expect(d.date_items.map((i) => [i.start_date, i.days])).toEqual([[Date.parse('2026-01-01T10:00:00Z'), []], [Date.parse('2026-03-01T10:00:00Z'), [1, 3]]])
      expect(d.parent_ids).toEqual([s, PUBLICATION_ID])
      expect(must(batch.get(b)).parent_ids).toEqual([PUBLICATION_ID, s])
    })

    it('when an object a fixtures plan names is deleted before the plan is written, then the plan is refused and nothing is written', async () => {
      const section = await store.objects.create(draft('section', 'S', { links: { parents: [PUBLICATION_ID], relations: [] } }), 1)
      const image = await store.objects.create(draft('image', 'I'), 1)
      const planned = planFixtures(JSON.stringify({
        objects: [
          { ref: 'a', object_type: 'document', title: 'A', parents: [section] },
          { object_type: 'document', title: 'B', parents: ['a'], relations: { attach: [{ related: image }] } },
        ],
      }), [], PUBLICATION_ID)
      if (!planned.ok) throw new Error(planned.errors.join('; '))
      // checked by the core while the image was there; deleted before the plan's transaction
      await store.objects.remove(image)
      const seq = store.committedSeq()
      await expect(store.applyFixtures(planned.plan, 1)).rejects.toBeInstanceOf(TargetGone)
      expect(store.committedSeq()).toBe(seq)
      expect(await store.tree.hasChildren(section)).toBe(false)
      expect(await store.objects.listByIds([image + 1, image + 2, image + 3])).toEqual([])
    })

    it('when permissions are set, then the row carries them', async () => {
      const doc = await store.objects.create(draft('document', 'D'), 1)
      expect(await store.objects.setPermissions(doc, ['members'], ['editor'])).toBe(true)
      expect(await store.objects.get({ id: doc })).toMatchObject({ read_groups: ['members'], write_groups: ['editor'] })
      expect(await store.objects.setPermissions(999, [], [])).toBe(false)
    })

    it('when every column is set, then get (by id and nickname) and listByIds return each one in its place', async () => {
      const columns = {
        title: 'T', description: 'De', subject: 'Su', abstract: 'Ab', body: 'Bo', note: 'No', lang: 'it', rights: 'Ri',
        license: 'Li', creator: 'Cr', publisher: 'Pu', comments: 'on', valid: false, start_date: 11, end_date: 22,
        publication_date: 33, file: fileOf(K1),
      }
      const id = await store.objects.create(draft('image', 'T', {
        nickname: 'every-column', status: 'draft', columns, read_groups: ['r1', 'r2'], write_groups: ['w1'], user_id: 9,
      }), 44)
      const want = {
        ...columns, id, object_type: 'image', nickname: 'every-column', status: 'draft', created: 44, modified: 44,
        user_created: 9, user_modified: 9, read_groups: ['r1', 'r2'], write_groups: ['w1'],
      }
      expect(await store.objects.get({ id })).toEqual(want)
      expect(await store.objects.get({ nickname: 'every-column' })).toEqual(want)
      expect(await store.objects.listByIds([id, 1])).toEqual(expect.arrayContaining([want]))
    })

    describe('pending uploads', () => {
      it('when an upload is added, then get answers it until it expires, and change listeners are not told', async () => {
        const upload = pending(keyOf('token-a'), K1, 1000)
        await store.uploads.add(upload, 500)
        expect(await store.uploads.get(upload.token_hash, 999)).toEqual(upload)
        expect(await store.uploads.get(upload.token_hash, 1000)).toBeNull()
        expect(await store.uploads.get(keyOf('unknown'), 500)).toBeNull()
        await settle(store)
        expect(changes).toBe(0)
      })

      it('when an upload is added, then the uploads already expired are dropped', async () => {
        await store.uploads.add(pending(keyOf('old'), K1, 100), 50)
        await store.uploads.add(pending(keyOf('new'), K2, 1000), 200)
        // asked "at 50", the old one would still count: it is gone, not merely expired
        expect(await store.uploads.get(keyOf('old'), 50)).toBeNull()
        expect(await store.uploads.get(keyOf('new'), 200)).toMatchObject({ expires_at: 1000 })
      })

      it('when keys are asked about, then those of objects\' files and of unexpired uploads are in use, in the order asked', async () => {
        const id = await store.objects.create(draft('image', 'I', withFile('I', K1)), 1)
        await store.uploads.add(pending(keyOf('t'), K2, 1000), 1)
        expect(await store.uploads.filesInUse([K3, K2, K1], 500)).toEqual([K2, K1])
        expect(await store.uploads.filesInUse([K3, K2, K1], 1000)).toEqual([K1])
        expect(await store.objects.update(id, { columns: { file: fileOf(K3) }, user_id: 7, extras: {} }, 2)).toBe(true)
        expect(await store.uploads.filesInUse([K1, K3], 500)).toEqual([K3])
        expect(await store.objects.remove(id)).toBe('removed')
        expect(await store.uploads.filesInUse([K1, K3], 500)).toEqual([])
        expect(await store.uploads.filesInUse([], 500)).toEqual([])
      })

      it('when a create claims an upload, then the upload goes with the write; a second claim is refused and writes nothing', async () => {
        const hash = keyOf('token-c')
        await store.uploads.add(pending(hash, K1, 1000), 1)
        const id = await store.objects.create(draft('image', 'I', { ...withFile('I', K1), claim: { token_hash: hash, now: 500 } }), 500)
        expect(must((await store.objects.get({ id }))).file).toEqual(fileOf(K1))
        expect(await store.uploads.get(hash, 500)).toBeNull()
        const before = changes
        await expect(store.objects.create(draft('image', 'J', { ...withFile('J', K1), nickname: 'j', claim: { token_hash: hash, now: 500 } }), 500))
          .rejects.toBeInstanceOf(UploadClaimConflict)
        expect(await store.objects.get({ nickname: 'j' })).toBeNull()
        await settle(store)
        expect(changes).toBe(before)
      })

      it('when an update claims an expired upload, then it is refused and the object keeps its fields; a live claim replaces the file', async () => {
        const hash = keyOf('token-u')
        await store.uploads.add(pending(hash, K2, 1000), 1)
        const id = await store.objects.create(draft('image', 'I', withFile('I', K1)), 1)
        const patch = { columns: { title: 'changed', file: fileOf(K2) }, user_id: 7, extras: {} }
        await expect(store.objects.update(id, { ...patch, claim: { token_hash: hash, now: 1000 } }, 1000)).rejects.toBeInstanceOf(UploadClaimConflict)
        expect(await store.objects.get({ id })).toMatchObject({ title: 'I', file: fileOf(K1) })
        // an object that is gone is not updated, and its claim stays unused
        expect(await store.objects.update(99_999, { ...patch, claim: { token_hash: hash, now: 500 } }, 500)).toBe(false)
        expect(await store.uploads.get(hash, 500)).not.toBeNull()
        expect(await store.objects.update(id, { ...patch, claim: { token_hash: hash, now: 500 } }, 500)).toBe(true)
        expect(await store.objects.get({ id })).toMatchObject({ title: 'changed', file: fileOf(K2) })
        expect(await store.uploads.get(hash, 500)).toBeNull()
      })

      it('when a stored file has an earlier shape (no content key), then the object reads back without a file', async () => {
        const earlier = { path: 'media/old.jpg', mime_type: 'image/jpeg', width: 1, height: 1 } as unknown as MediaFileRecord
        const id = await store.objects.create(draft('image', 'Old', { columns: { ...DEFAULT_COLUMNS, title: 'Old', file: earlier } }), 1)
        expect(must((await store.objects.get({ id }))).file).toBeNull()
        expect(must((await store.objects.listByIds([id]))[0]).file).toBeNull()
      })
    })

    describe('idempotency keys', () => {
      const claim = (key: string, at: number, request_hash = 'h1'): IdempotencyClaim => ({ user_id: 7, key, request_hash, at })

      it('when a write records a key, then get answers its outcome until it expires; a second write of the key is refused and writes nothing', async () => {
        const id = await store.objects.create(draft('document', 'A', { idempotency: claim('k', 1000) }), 1000)
        expect(await store.idempotency.get(7, 'k', 1000 + IDEMPOTENCY_WINDOW_MS - 1))
          .toEqual({ request_hash: 'h1', outcome: { kind: 'object', id, created: true }, response: null, created_at: 1000 })
        expect(await store.idempotency.get(8, 'k', 1000)).toBeNull()
        expect(await store.idempotency.get(7, 'k', 1000 + IDEMPOTENCY_WINDOW_MS)).toBeNull()
        await expect(store.objects.create(draft('document', 'B', { nickname: 'b', idempotency: claim('k', 2000, 'h2') }), 2000))
          .rejects.toBeInstanceOf(IdempotencyKeyTaken)
        expect(await store.objects.get({ nickname: 'b' })).toBeNull()
        await expect(store.relations.save(id, 'seealso', 'seealso', [{ related_id: 1, priority: null, params: null }], claim('k', 2000)))
          .rejects.toBeInstanceOf(IdempotencyKeyTaken)
        expect(await store.relations.get(id, 'seealso', 1)).toBeNull()
      })

      it('when the answer is stored, then get returns it; an expired key is recorded anew and pruning drops only expired ones', async () => {
        const saved = await store.tree.addChildren(1, [{ child_id: await store.objects.create(draft('document', 'C'), 1), priority: 3 }], claim('kids', 1000))
        await store.idempotency.respond(claim('kids', 1000), '{"items":[]}')
        expect(await store.idempotency.get(7, 'kids', 1000)).toMatchObject({ outcome: { kind: 'children', items: saved }, response: '{"items":[]}' })
        const later = 1000 + IDEMPOTENCY_WINDOW_MS
        const rows = await store.relations.save(1, 'seealso', 'seealso', [{ related_id: must(saved[0]).child_id, priority: null, params: null }], claim('kids', later, 'h2'))
        expect(await store.idempotency.get(7, 'kids', later)).toEqual({ request_hash: 'h2', outcome: { kind: 'relations', items: rows }, response: null, created_at: later })
        await store.objects.create(draft('document', 'D', { idempotency: claim('old', 1000) }), 1000)
        expect(await store.idempotency.prune(later)).toBe(1)
        expect(await store.idempotency.get(7, 'kids', later)).not.toBeNull()
      })
    })
  })
}
