import { describe, expect, it } from 'vitest'
import type * as grpc from '@grpc/grpc-js'
import type { v1 } from '@content/protos'
import { NOW, PIC_FILE, SITE } from './site.fixture.js'
import { admin, anonymous, failure, harnessTest, importFixtures, KNOWN_GROUPS, startHarness } from './harness.js'
import { must } from '../support/must.js'

describe('ImportFixtures and SetPermissions over gRPC', () => {
  const { h } = harnessTest({ now: NOW }, null)

  const countAll = async () => must((await h.objects.ListObjects({ caller: admin, page: { page: 1, page_size: 100 } })).paging).total
  const run = (fixtures: unknown, dry_run = false) =>
    h.objects.ImportFixtures({ fixtures_json: typeof fixtures === 'string' ? fixtures : JSON.stringify(fixtures), known_groups: KNOWN_GROUPS, dry_run })

  it('when a valid file is imported, then every ref maps to a new id and the objects read back', async () => {
    const refs = await importFixtures(h, SITE)
    expect(Object.keys(refs).sort()).toEqual(SITE.objects.map((o) => o.ref).sort())
    expect(new Set(Object.values(refs)).size).toBe(SITE.objects.length)
    expect(Math.min(...Object.values(refs))).toBe(2)
    const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(refs.news) })
    expect(object).toMatchObject({ nickname: 'news', title: 'News', parent_ids: [1] })
  })

  it('when the compact answer is asked, then it gives the id of each object with a ref in file order, and no map', async () => {
    const objects = [
      { ref: 'b', object_type: 'section', title: 'B', parents: ['@publication'] },
      { object_type: 'document', title: 'no ref', parents: ['b'] },
      { ref: 'a', object_type: 'document', title: 'A', parents: ['b'] },
    ]
    const answer = await h.objects.ImportFixtures({ fixtures_json: JSON.stringify({ objects }), known_groups: KNOWN_GROUPS, dry_run: false, answer_ref_ids: true })
    expect(answer.refs).toEqual({})
    expect(answer.ref_ids).toHaveLength(2)
    const titles = await Promise.all(answer.ref_ids.map(async (id) => (await h.objects.GetObject({ caller: admin, object_id: String(id) })).object?.title))
    expect(titles).toEqual(['B', 'A'])
    expect((await h.objects.ImportFixtures({ fixtures_json: JSON.stringify({ objects }), known_groups: KNOWN_GROUPS, dry_run: true, answer_ref_ids: true })).ref_ids).toEqual([])
  })

  it('when a dry run is asked, then the file is checked and nothing is written', async () => {
    expect((await run(SITE, true)).refs).toEqual({})
    expect(await countAll()).toBe(0)
  })

  it('when one object of a file is bad, then nothing at all is written and every problem is listed', async () => {
    const bad = { objects: [...SITE.objects, { ref: 'x', object_type: 'blog' }, { ref: 'y', object_type: 'document', parents: ['nowhere'] }] }
    const f = await failure(run(bad))
    expect(f).toMatchObject({ httpStatus: 400, reason: 'FIXTURES_INVALID' })
    expect(f.message).toMatch(/unknown object type "blog"/)
    expect((f.details as { errors: string[] }).errors).toHaveLength(2)
    expect(await countAll()).toBe(0)
  })

  it('when a media object names the file the poster service stored, then the object carries it and its key is in use', async () => {
    const refs = await importFixtures(h, { objects: [{ ref: 'img', object_type: 'image', title: 'I', parents: ['@publication'], file: PIC_FILE }] })
    const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(refs.img) })
    expect(object).toMatchObject({ file: PIC_FILE })
    expect((await h.media.FilesInUse({ keys: [PIC_FILE.key] })).keys).toEqual([PIC_FILE.key])
  })

  it('when a document carries a file, or a file is still a path, then the import is refused naming objects.N.file and nothing is written', async () => {
    const f = await failure(run({ objects: [
      { ref: 'ok', object_type: 'image', title: 'fine', parents: ['@publication'], file: PIC_FILE },
      { ref: 'doc', object_type: 'document', title: 'D', parents: ['@publication'], file: PIC_FILE },
      { ref: 'path', object_type: 'image', title: 'P', parents: ['@publication'], file: 'media/pic.jpg' },
    ] }))
    expect(f).toMatchObject({ httpStatus: 400, reason: 'FIXTURES_INVALID' })
    const errors = (f.details as { errors: string[] }).errors
    expect(errors.some((e) => e.startsWith('objects.2.file'))).toBe(true)
    expect(await countAll()).toBe(0)
    const g = await failure(run({ objects: [{ ref: 'doc', object_type: 'document', title: 'D', parents: ['@publication'], file: PIC_FILE }] }))
    expect((g.details as { errors: string[] }).errors).toEqual(['objects.0.file: a document takes no file'])
    expect(await countAll()).toBe(0)
  })

  it('when the file is not JSON, then 400 FIXTURES_INVALID', async () => {
    expect(await failure(run('{"objects": ['))).toMatchObject({ httpStatus: 400, reason: 'FIXTURES_INVALID' })
  })

  it('when an explicit nickname is already taken, then the import is refused', async () => {
    await importFixtures(h, { objects: [{ object_type: 'document', title: 'A', nickname: 'same' }] })
    const f = await failure(run({ objects: [{ object_type: 'document', title: 'B', nickname: 'same' }] }))
    expect(f).toMatchObject({ reason: 'FIXTURES_INVALID' })
    expect(f.message).toMatch(/"same" is already taken/)
  })

  it('when generated nicknames collide, then they get numeric suffixes', async () => {
    const refs = await importFixtures(h, { objects: [
      { ref: 'a', object_type: 'document', title: 'Same title', parents: ['@publication'] },
      { ref: 'b', object_type: 'document', title: 'Same title', parents: ['@publication'] },
      { ref: 'c', object_type: 'document', parents: ['@publication'] },
    ] })
    const list = await h.tree.ListTree({ caller: anonymous, object_id: '1', kind: 'CHILDREN' })
    expect(list.objects.map((o) => o.nickname)).toEqual(['same-title', 'same-title-1', `document-${refs.c}`])
  })

  it('when a file names existing objects by id, then it links to them', async () => {
    const first = await importFixtures(h, { objects: [{ ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] }] })
    const second = await importFixtures(h, { objects: [{ ref: 'd', object_type: 'document', title: 'D', parents: [first.s] }] })
    const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(second.d) })
    expect(must(object).parent_ids).toEqual([first.s])
  })

  it('when permissions are set, then reads follow them', async () => {
    const refs = await importFixtures(h, { objects: [{ ref: 'd', object_type: 'document', title: 'D', parents: ['@publication'] }] })
    await h.objects.SetPermissions({ object_id: String(refs.d), read_groups: ['members'], write_groups: [] })
    expect(await failure(h.objects.GetObject({ caller: anonymous, object_id: String(refs.d) }))).toMatchObject({ reason: 'OBJECT_PROTECTED' })
    await h.objects.SetPermissions({ object_id: String(refs.d), read_groups: [], write_groups: [] })
    expect((await h.objects.GetObject({ caller: anonymous, object_id: String(refs.d) })).object).toMatchObject({ id: refs.d, title: 'D' })
    expect(await failure(h.objects.SetPermissions({ object_id: '999', read_groups: [], write_groups: [] }))).toMatchObject({ httpStatus: 404 })
  })
})

describe('WatchChanges over gRPC', () => {
  type Raw = { WatchChanges(req: object): grpc.ClientReadableStream<v1.Change__Output> }
  function watch (h: Awaited<ReturnType<typeof startHarness>>, request: object) {
    const stream = (h.objects.raw as unknown as Raw).WatchChanges(request)
    const seen: v1.Change__Output[] = []
    const waiters: (() => void)[] = []
    stream.on('data', (c: v1.Change__Output) => { seen.push(c); waiters.forEach((w) => { w() }) })
    stream.on('error', () => {})
    const waitFor = (n: number) => new Promise<void>((resolve) => {
      const check = () => { if (seen.length >= n) resolve() }
      waiters.push(check)
      check()
    })
    return { stream, seen, waitFor }
  }
  const events = (seen: v1.Change__Output[]) => seen.flatMap((c) => c.events.map((e) => [e.seq, e.type, e.object_id]))

  it('when subscribed afresh, then a reset comes first, then every committed write\'s events; a failed write tells nothing', async () => {
    const h = await startHarness({ now: NOW })
    try {
      const w = watch(h, {})
      await w.waitFor(1)
      expect(w.seen[0]).toMatchObject({ store_id: h.store.storeId, reset: true, clock: false, events: [], seq: 0 })
      const more = w.waitFor(3)
      const refs = await importFixtures(h, { objects: [{ ref: 'a', object_type: 'document', title: 'A' }] })
      await h.objects.SetPermissions({ object_id: 'a', read_groups: ['members'], write_groups: [] })
      await more
      expect(events(w.seen)).toEqual([[1, 'object.created', refs.a], [2, 'permissions.changed', refs.a]])
      expect(must(w.seen.at(-1)).seq).toBe(2)
      const failed = await failure(h.objects.ImportFixtures({ fixtures_json: '{', known_groups: [], dry_run: false }))
      expect(failed.reason).toBe('FIXTURES_INVALID')
      expect(h.feed.position).toBe(2)
      const ended = new Promise((resolve) => w.stream.on('end', resolve).on('status', resolve))
      h.feed.close()
      await ended
    } finally {
      await h.close()
    }
  })

  it('when a subscriber resumes, then it gets the events after its number and then the new ones; an unknown position starts over', async () => {
    const h = await startHarness({ now: NOW })
    try {
      const refs = await importFixtures(h, { objects: [{ ref: 'a', object_type: 'document', title: 'A' }, { ref: 'b', object_type: 'document', title: 'B' }] })
      const resumed = watch(h, { store_id: h.store.storeId, after_seq: 1 })
      await resumed.waitFor(1)
      expect(must(resumed.seen[0]).reset).toBe(false)
      expect(events(resumed.seen)).toEqual([[2, 'object.created', refs.b]])
      const live = watch(h, { store_id: h.store.storeId, after_seq: 2 })
      await live.waitFor(1)
      expect(live.seen[0]).toMatchObject({ reset: false, events: [], seq: 2 }) // up to date: told at once
      const more = Promise.all([resumed.waitFor(2), live.waitFor(2)])
      await h.objects.SetPermissions({ object_id: 'b', read_groups: ['members'], write_groups: [] })
      await more
      expect(events(resumed.seen.slice(1))).toEqual([[3, 'permissions.changed', refs.b]])
      expect(events(live.seen.slice(1))).toEqual([[3, 'permissions.changed', refs.b]])
      for (const stale of [{ store_id: 'another-store', after_seq: 1 }, { store_id: h.store.storeId, after_seq: 99 }]) {
        const w = watch(h, stale)
        await w.waitFor(1)
        expect(w.seen[0]).toMatchObject({ reset: true, events: [], seq: 3 })
        w.stream.cancel()
      }
      resumed.stream.cancel()
      live.stream.cancel()
    } finally {
      await h.close()
    }
  })
})
