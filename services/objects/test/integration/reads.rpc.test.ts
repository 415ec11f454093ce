import { describe, expect, it } from 'vitest'
import { NOW, PIC_FILE, SITE } from './site.fixture.js'
import { anonymous, failure, harnessTest, importFixtures, member, startHarness, stranger } from './harness.js'
import { must } from '../support/must.js'

describe('ObjectService reads over gRPC', () => {
  const { h, ids } = harnessTest({ now: NOW, per: 'file' })

  describe('GetObject', () => {
    it('when an object is read by nickname, then every field of the read model is there', async () => {
      const { object } = await h.objects.GetObject({ caller: anonymous, object_id: 'hello' })
      expect(object).toMatchObject({
        id: ids.doc1, object_type: 'document', object_type_id: 22, nickname: 'hello', title: 'Hello', description: 'First',
        status: 'on', authorized: true, free_access: true, lang: 'en', valid: true,
        publication_date: Date.UTC(2025, 0, 1, 9), created: NOW, modified: NOW, parent_ids: [ids.news],
        custom_properties: { color: 'red', size: '3' }, languages: { it: { fields: { title: 'Ciao' } } },
        tags: [{ name: 'fresh', label: 'fresh' }, { name: 't1', label: 'Tag one' }],
        relations: [{ name: 'attach', count: 1 }, { name: 'seealso', count: 1 }],
      })
      expect(must(object).categories).toEqual([expect.objectContaining({ name: 'c1', label: 'Category one' })])
      expect(must(object).geo_tags[0]).toMatchObject({ object_id: ids.doc1, latitude: 45.5, longitude: 9.2, address: 'Main St 1', title: 'Office' })
      expect(must(object).subject).toBeUndefined()
      expect(must(object).start_date).toBeUndefined()
      expect(must(must(object).categories[0]).area_id).toBeUndefined()
      expect(must(object).children ?? null).toBeNull()
    })

    it('when an object is read by id, then relation counts include only what the caller may read', async () => {
      const { object } = await h.objects.GetObject({ caller: member, object_id: String(ids.doc1) })
      expect(must(object).relations).toEqual([{ name: 'attach', count: 2, included: false }, { name: 'seealso', count: 1, included: false }])
    })

    it('when a section is read, then its children summary counts visible sections and contents', async () => {
      const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(ids.news) })
      expect(must(object).children).toEqual({ count: 4, sections: 1, contents: 3 })
      const asMember = await h.objects.GetObject({ caller: member, object_id: 'news' })
      expect(must(asMember.object).children).toEqual({ count: 5, sections: 1, contents: 4 })
      const pub = await h.objects.GetObject({ caller: anonymous, object_id: '1' })
      expect(pub.object).toMatchObject({ object_type: 'area', object_type_id: 1, children: { count: 2, sections: 2, contents: 0 }, parent_ids: [] })
    })

    it('when an event is read, then date items carry distinct sorted days', async () => {
      const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(ids.event1) })
      expect(must(object).date_items).toEqual([{ start_date: Date.UTC(2025, 1, 1, 20), end_date: Date.UTC(2025, 1, 1, 23), days: [1, 3] }])
      expect(must(object).parent_ids).toEqual([ids.news, ids.about])
    })

    it('when a media object has a file, then it is returned as stored', async () => {
      const { object } = await h.objects.GetObject({ caller: anonymous, object_id: String(ids.img1) })
      expect(object).toMatchObject({ file: PIC_FILE })
      const noFile = await h.objects.GetObject({ caller: anonymous, object_id: String(ids.img2) })
      expect(must(noFile.object).file ?? null).toBeNull()
      const doc = await h.objects.GetObject({ caller: anonymous, object_id: 'hello' })
      expect(must(doc.object).file ?? null).toBeNull()
    })

    it.each([
      ['a draft', () => String(ids.draftdoc)],
      ['an object before its start date', () => String(ids.future)],
      ['an unknown id', () => '99999'],
      ['an unknown nickname', () => 'no-such-thing'],
    ])('when %s is read, then 404 OBJECT_NOT_FOUND', async (_label, id) => {
      const f = await failure(h.objects.GetObject({ caller: member, object_id: id() }))
      expect(f).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
    })

    it('when a protected object is read anonymously, then 401 OBJECT_PROTECTED', async () => {
      expect(await failure(h.objects.GetObject({ caller: anonymous, object_id: String(ids.secret) }))).toMatchObject({ httpStatus: 401, reason: 'OBJECT_PROTECTED' })
    })

    it('when a protected object is read by a user outside its groups, then 403 PERMISSION_DENIED', async () => {
      expect(await failure(h.objects.GetObject({ caller: stranger, object_id: String(ids.secret) }))).toMatchObject({ httpStatus: 403, reason: 'PERMISSION_DENIED' })
    })

    it('when a protected object is read by a member, then it answers with free_access false', async () => {
      const { object } = await h.objects.GetObject({ caller: member, object_id: String(ids.secret) })
      expect(object).toMatchObject({ authorized: true, free_access: false })
    })
  })

  describe('ListObjects', () => {
    it('when listed, then the publication descendants come by id, visible ones only', async () => {
      const res = await h.objects.ListObjects({ caller: anonymous, page: { page: 1, page_size: 100 } })
      const visible = ['news', 'about', 'sub', 'doc1', 'doc2', 'event1', 'img2'].map((r) => ids[r])
      expect(res.objects.map((o) => o.id)).toEqual(visible)
      expect(res.paging).toEqual({ page: 1, page_size: 100, page_count: 7, total: 7, total_pages: 1, uncounted: false })
    })

    it('when a member lists, then protected objects they may read are included', async () => {
      const res = await h.objects.ListObjects({ caller: member, page: { page: 1, page_size: 100 } })
      expect(res.objects.map((o) => o.id)).toContain(ids.secret)
      expect(must(res.paging).total).toBe(8)
    })

    it('when pages are walked, then their concatenation is the whole list once', async () => {
      const seen: number[] = []
      for (let page = 1; page <= 3; page++) {
        const res = await h.objects.ListObjects({ caller: anonymous, page: { page, page_size: 3 } })
        expect(res.paging).toMatchObject({ page, page_size: 3, total: 7, total_pages: 3, page_count: page < 3 ? 3 : 1 })
        seen.push(...res.objects.map((o) => o.id))
      }
      expect(new Set(seen).size).toBe(7)
    })

    it('when a page past the end is asked, then the list is empty with correct totals', async () => {
      const res = await h.objects.ListObjects({ caller: anonymous, page: { page: 9, page_size: 5 } })
      expect(res.objects).toEqual([])
      expect(res.paging).toEqual({ page: 9, page_size: 5, page_count: 0, total: 7, total_pages: 2, uncounted: false })
    })

    it('when paging values are out of range, then they are clamped', async () => {
      const res = await h.objects.ListObjects({ caller: anonymous, page: { page: 0, page_size: 5000 } })
      expect(res.paging).toMatchObject({ page: 1, page_size: 100 })
      const defaults = await h.objects.ListObjects({ caller: anonymous })
      expect(defaults.paging).toMatchObject({ page: 1, page_size: 20 })
    })

    it('when filtered by type and query, then only matching objects are listed', async () => {
      const images = await h.objects.ListObjects({ caller: anonymous, filter: { object_types: ['image', 'event'], query: '' } })
      expect(images.objects.map((o) => o.id)).toEqual([ids.event1, ids.img2])
      const found = await h.objects.ListObjects({ caller: anonymous, filter: { object_types: [], query: 'Searchable body' } })
      expect(found.objects.map((o) => o.id)).toEqual([ids.doc2])
      const byDescription = await h.objects.ListObjects({ caller: anonymous, filter: { object_types: ['document'], query: 'FIRST' } })
      expect(byDescription.objects.map((o) => o.id)).toEqual([ids.doc1])
    })

    it('when the filter names an unknown type, then 400 VALIDATION_FAILED', async () => {
      const f = await failure(h.objects.ListObjects({ caller: anonymous, filter: { object_types: ['docs'], query: '' } }))
      expect(f).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED' })
    })
  })

  describe('x-depends-on', () => {
    type Headers = { onHeaders: (headers: Record<string, string>) => void }
    /** Makes `read` with a listener of its response headers; answers the ids the answer says it depends on, sorted. */
    async function dependsOn (read: (options: Headers) => Promise<unknown>): Promise<number[]> {
      let said = ''
      await read({ onHeaders: (headers) => { said = headers['x-depends-on'] ?? '' } })
      return said.split(',').map(Number).sort((a, b) => a - b)
    }
    const sorted = (...refs: (string | number)[]) => refs.map((r) => (typeof r === 'number' ? r : must(ids[r]))).sort((a, b) => a - b)

    it('when an object or its relation summary is read, then the answer depends on the object alone', async () => {
      expect(await dependsOn((o) => h.objects.GetObject({ caller: anonymous, object_id: 'hello' }, o))).toEqual(sorted('doc1'))
      expect(await dependsOn((o) => h.objects.GetObject({ caller: anonymous, object_id: 'news' }, o))).toEqual(sorted('news'))
      expect(await dependsOn((o) => h.objects.GetRelationSummary({ caller: anonymous, object_id: 'hello' }, o))).toEqual(sorted('doc1'))
    })

    it('when relations are read, then the answer depends on the object and each related object it shows', async () => {
      const related = (caller: typeof anonymous) => (o: Headers) => h.objects.ListRelated({ caller, object_id: 'hello', name: 'attach' }, o)
      expect(await dependsOn(related(anonymous))).toEqual(sorted('doc1', 'img1'))
      expect(await dependsOn(related(member))).toEqual(sorted('doc1', 'img1', 'privimg'))
      expect(await dependsOn((o) => h.objects.GetRelation({ caller: anonymous, object_id: 'hello', name: 'attach', related_id: must(ids.img1) }, o)))
        .toEqual(sorted('doc1', 'img1'))
    })

    it('when a tree is read, then the answer depends on the object read under and each object it shows', async () => {
      expect(await dependsOn((o) => h.tree.ListTree({ caller: anonymous, object_id: 'news', kind: 'CHILDREN' }, o))).toEqual(sorted('news', 'sub', 'doc1', 'doc2', 'event1'))
      expect(await dependsOn((o) => h.tree.ListTree({ caller: anonymous, object_id: String(ids.img2), kind: 'ANCESTORS' }, o))).toEqual(sorted(1, 'news', 'sub', 'img2'))
      expect(await dependsOn((o) => h.tree.GetChildPosition({ caller: anonymous, object_id: 'news', child_id: must(ids.doc2) }, o))).toEqual(sorted('news', 'doc2'))
      let listed: number[] = []
      const all = await dependsOn(async (o) => { listed = (await h.objects.ListObjects({ caller: anonymous, page: { page: 1, page_size: 100 } }, o)).objects.map((x) => x.id) })
      expect(all).toEqual(sorted(1, ...listed))
    })
  })
})

describe('ObjectService visibility settings', () => {
  it('when drafts are visible and the window filter is off, then drafts and future objects read', async () => {
    const h = await startHarness({ now: NOW, visibleStatuses: ['on', 'draft'], windowFilter: false })
    try {
      const ids = await importFixtures(h, SITE)
      expect((await h.objects.GetObject({ caller: anonymous, object_id: String(ids.draftdoc) })).object).toMatchObject({ id: ids.draftdoc })
      expect((await h.objects.GetObject({ caller: anonymous, object_id: String(ids.future) })).object).toMatchObject({ id: ids.future })
    } finally {
      await h.close()
    }
  })

  it('when the clock passes an end date, then the object disappears', async () => {
    const h = await startHarness({ now: NOW })
    try {
      const ids = await importFixtures(h, { objects: [{ ref: 'x', object_type: 'document', title: 'X', end_date: new Date(NOW + 1000).toISOString(), parents: ['@publication'] }] })
      expect((await h.objects.GetObject({ caller: anonymous, object_id: String(ids.x) })).object).toMatchObject({ id: ids.x })
      h.clock.now = NOW + 1001
      expect(await failure(h.objects.GetObject({ caller: anonymous, object_id: String(ids.x) }))).toMatchObject({ reason: 'OBJECT_NOT_FOUND' })
    } finally {
      await h.close()
    }
  })
})
