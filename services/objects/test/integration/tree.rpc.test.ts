import { describe, expect, it } from 'vitest'
import { NOW } from './site.fixture.js'
import { anonymous, failure, harnessTest, member, stranger } from './harness.js'
import { must } from '../support/must.js'

describe('TreeService and relation reads over gRPC', () => {
  const { h, ids } = harnessTest({ now: NOW, per: 'file' })
  const list = (object_id: string, kind: string, caller = anonymous, extra: object = {}) =>
    h.tree.ListTree({ caller, object_id, kind: kind as 'CHILDREN', page: { page: 1, page_size: 100 }, ...extra })
  const idsOf = async (p: ReturnType<typeof list>) => (await p).objects.map((o) => o.id)

  it('when children are listed, then visible children come by priority', async () => {
    expect(await idsOf(list('news', 'CHILDREN'))).toEqual([ids.sub, ids.doc1, ids.doc2, ids.event1])
    expect(await idsOf(list('news', 'CHILDREN', member))).toEqual([ids.sub, ids.doc1, ids.doc2, ids.secret, ids.event1])
  })

  it('when sections or contents are listed, then children are split by type', async () => {
    expect(await idsOf(list('news', 'SECTIONS'))).toEqual([ids.sub])
    expect(await idsOf(list('news', 'CONTENTS'))).toEqual([ids.doc1, ids.doc2, ids.event1])
    expect(await idsOf(list('1', 'SECTIONS'))).toEqual([ids.news, ids.about])
  })

  it('when descendants are listed, then every object below comes once, sections included', async () => {
    const res = await list('publication', 'DESCENDANTS')
    const got = res.objects.map((o) => o.id)
    expect(new Set(got).size).toBe(got.length)
    expect(got.sort((a, b) => a - b)).toEqual(['news', 'about', 'sub', 'doc1', 'doc2', 'event1', 'img2'].map((r) => must(ids[r])).sort((a, b) => a - b))
    expect(await idsOf(list('news', 'DESCENDANTS'))).toEqual([ids.sub, ids.img2, ids.doc1, ids.doc2, ids.event1])
  })

  it('when a tree list is asked of a content, then 400 NOT_A_TREE_NODE', async () => {
    for (const kind of ['CHILDREN', 'SECTIONS', 'CONTENTS', 'DESCENDANTS']) {
      expect(await failure(list('hello', kind))).toMatchObject({ httpStatus: 400, reason: 'NOT_A_TREE_NODE' })
    }
  })

  it('when siblings are listed, then the other children of the first parent come', async () => {
    expect(await idsOf(list('hello', 'SIBLINGS'))).toEqual([ids.sub, ids.doc2, ids.event1])
    expect(await idsOf(list(String(ids.event1), 'SIBLINGS'))).toEqual([ids.sub, ids.doc1, ids.doc2])
  })

  it('when siblings of the publication are asked, then 404 NO_PARENT', async () => {
    expect(await failure(list('1', 'SIBLINGS'))).toMatchObject({ httpStatus: 404, reason: 'NO_PARENT' })
  })

  it('when ancestors and parents are listed, then the root-first path and the direct parents come', async () => {
    expect(await idsOf(list(String(ids.img2), 'ANCESTORS'))).toEqual([1, ids.news, ids.sub])
    expect(await idsOf(list(String(ids.event1), 'PARENTS'))).toEqual([ids.news, ids.about])
    expect(await idsOf(list('1', 'ANCESTORS'))).toEqual([])
  })

  it('when a tree list is filtered and paged, then totals follow the filter', async () => {
    const res = await list('news', 'CHILDREN', anonymous, { filter: { object_types: ['document'], query: '' }, page: { page: 2, page_size: 1 } })
    expect(res.objects.map((o) => o.id)).toEqual([ids.doc2])
    expect(res.paging).toEqual({ page: 2, page_size: 1, page_count: 1, total: 2, total_pages: 2, uncounted: false })
  })

  it('when the node is protected, then tree lists answer 401 and 403 first', async () => {
    expect(await failure(list(String(ids.secret), 'SIBLINGS'))).toMatchObject({ httpStatus: 401 })
    expect(await failure(list(String(ids.secret), 'SIBLINGS', stranger))).toMatchObject({ httpStatus: 403 })
    expect(await failure(list('99999', 'CHILDREN'))).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
  })

  it('when a child position is asked, then its priority answers, or 404 CHILD_NOT_FOUND', async () => {
    expect(await h.tree.GetChildPosition({ caller: anonymous, object_id: 'news', child_id: ids.doc2 })).toEqual({ priority: 3 })
    expect(await failure(h.tree.GetChildPosition({ caller: anonymous, object_id: 'news', child_id: ids.img2 }))).toMatchObject({ httpStatus: 404, reason: 'CHILD_NOT_FOUND' })
    expect(await failure(h.tree.GetChildPosition({ caller: anonymous, object_id: 'news', child_id: ids.secret }))).toMatchObject({ reason: 'CHILD_NOT_FOUND' })
    expect(await h.tree.GetChildPosition({ caller: member, object_id: 'news', child_id: ids.secret })).toEqual({ priority: 4 })
  })

  describe('relations', () => {
    it('when the relation summary is asked, then names with visible related objects are counted', async () => {
      // a nickname in the request: the answer names the id, which relation URLs use
      expect(await h.objects.GetRelationSummary({ caller: anonymous, object_id: 'hello' })).toEqual({ relations: [{ name: 'attach', count: 1, included: false }, { name: 'seealso', count: 1, included: false }], object_id: ids.doc1 })
      expect(await h.objects.GetRelationSummary({ caller: anonymous, object_id: String(ids.img1) })).toEqual({ relations: [{ name: 'attached_to', count: 1, included: false }], object_id: ids.img1 })
      expect(await h.objects.GetRelationSummary({ caller: anonymous, object_id: String(ids.doc2) })).toEqual({ relations: [{ name: 'seealso', count: 1, included: false }], object_id: ids.doc2 })
    })

    it('when related objects are listed, then they come by priority with their relation meta', async () => {
      const res = await h.objects.ListRelated({ caller: member, object_id: 'hello', name: 'attach', page: { page: 1, page_size: 10 } })
      expect(res.objects.map((o) => [o.id, o.relation])).toEqual([
        [ids.img1, { priority: 1, params_json: '{"label":"x"}' }],
        [ids.privimg, { priority: 2, params_json: '' }],
      ])
      expect(res.paging).toMatchObject({ total: 2, page_count: 2 })
      const anon = await h.objects.ListRelated({ caller: anonymous, object_id: 'hello', name: 'attach' })
      expect(anon.objects.map((o) => o.id)).toEqual([ids.img1])
      const back = await h.objects.ListRelated({ caller: anonymous, object_id: String(ids.img1), name: 'attached_to' })
      expect(back.objects.map((o) => [o.id, o.relation?.params_json])).toEqual([[ids.doc1, '{"label":"x"}']])
    })

    it('when a relation name does not fit the object type, then 400 UNKNOWN_RELATION', async () => {
      expect(await failure(h.objects.ListRelated({ caller: anonymous, object_id: 'hello', name: 'attached_to' }))).toMatchObject({ httpStatus: 400, reason: 'UNKNOWN_RELATION' })
      expect(await failure(h.objects.ListRelated({ caller: anonymous, object_id: 'hello', name: 'nonsense' }))).toMatchObject({ reason: 'UNKNOWN_RELATION' })
    })

    it('when one relation is asked, then its meta answers, or 404 RELATION_NOT_FOUND', async () => {
      expect(await h.objects.GetRelation({ caller: anonymous, object_id: 'hello', name: 'attach', related_id: ids.img1 })).toEqual({ priority: 1, params_json: '{"label":"x"}' })
      expect(await failure(h.objects.GetRelation({ caller: anonymous, object_id: 'hello', name: 'attach', related_id: ids.img2 }))).toMatchObject({ httpStatus: 404, reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.GetRelation({ caller: anonymous, object_id: 'hello', name: 'attach', related_id: ids.privimg }))).toMatchObject({ reason: 'RELATION_NOT_FOUND' })
      expect(await failure(h.objects.GetRelation({ caller: anonymous, object_id: 'hello', name: 'poster_of', related_id: ids.img1 }))).toMatchObject({ reason: 'UNKNOWN_RELATION' })
    })
  })
})
