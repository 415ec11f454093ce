import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARCHIVE_SIZE } from './support/reads-fixtures.js'
import { allPages, expectError, idsOf, startSeeded, type Role, type SeededSystem } from './support/seeded.js'
import { must } from './support/must.js'

describe('list reads: tree lists, paging and filters', () => {
  let s: SeededSystem
  const id = (ref: string) => must(s.refs[ref])
  const ids = (...refs: string[]) => refs.map(id)
  const archive = () => Array.from({ length: ARCHIVE_SIZE }, (_, i) => id(`arch${i + 1}`))
  /** Everything on the publication tree an anonymous reader may see. */
  const publicTree = () => [...ids('news', 'about', 'team', 'deep', 'archive', 'welcome', 'howto', 'launch', 'inside-private', 'deep-doc', 'cover'), ...archive()]

  beforeAll(async () => { s = await startSeeded() })
  afterAll(async () => { await s?.stop() })

  it('GET /objects: the descendants of the publication by id, each once, paged 1/20 by default', async () => {
    const res = await s.get('/objects')
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['api', 'data', 'method', 'paging', 'params', 'url'])
    const expected = publicTree().sort((a, b) => a - b)
    expect(res.body.paging).toEqual({ page: 1, page_size: 20, page_count: 20, total: expected.length, total_pages: Math.ceil(expected.length / 20) })
    expect(idsOf(res)).toEqual(expected.slice(0, 20))
    expect(await allPages(s, '/objects', 'anonymous', 7)).toEqual(expected)
    const member = await allPages(s, '/objects', 'member', 100)
    expect(member).toEqual([...expected, ...ids('private', 'members-doc')].sort((a, b) => a - b))
    for (const hidden of ids('off-doc', 'future-doc', 'past-doc', 'logo')) expect(member).not.toContain(hidden)
  })

  it('children, sections and contents: direct children by tree priority; a hidden child is left out of items and counts', async () => {
    const news = await s.get('/objects/news/children')
    expect(idsOf(news)).toEqual(ids('welcome', 'howto', 'launch', 'cover'))
    expect(news.body.paging.total).toBe(4)
    expect(idsOf(await s.get('/objects/news/contents', 'admin'))).toEqual(ids('welcome', 'howto', 'launch', 'cover'))
    expect((await s.get('/objects/news/sections')).body).toMatchObject({ data: { objects: [] }, paging: { total: 0, page_count: 0, total_pages: 0 } })
    expect(idsOf(await s.get('/objects/1/children'))).toEqual(ids('news', 'about', 'archive'))
    expect(idsOf(await s.get('/objects/publication/sections', 'member'))).toEqual(ids('news', 'about', 'archive', 'private'))
    expect(idsOf(await s.get('/objects/about/children'))).toEqual(ids('team', 'howto'))
    expect(idsOf(await s.get('/objects/about/sections'))).toEqual(ids('team'))
    expect(idsOf(await s.get('/objects/about/contents', 'member'))).toEqual(ids('howto', 'members-doc'))
    expect(idsOf(await s.get('/objects/about/contents', 'outsider'))).toEqual(ids('howto'))
  })

  it('children follow tree priority, not ids, and paging through them is stable', async () => {
    const first = id('arch1')
    const moved = await fetch(`${s.system.base}/objects/archive/children/${first}`, {
      method: 'PUT', headers: { authorization: `Bearer ${s.tokens.admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ data: { priority: 1000 } }),
    })
    expect(moved.status).toBe(200)
    const expected = [...archive().slice(1), first]
    expect(await allPages(s, '/objects/archive/children', 'anonymous', 20)).toEqual(expected)
    expect(await allPages(s, '/objects/archive/contents', 'anonymous', 13)).toEqual(expected)
    const last = await s.get('/objects/archive/children?page=3&page_size=20')
    expect(last.body.paging).toEqual({ page: 3, page_size: 20, page_count: ARCHIVE_SIZE - 40, total: ARCHIVE_SIZE, total_pages: 3 })
    expect((await s.get(`/objects/archive/children/${first}`)).body.data).toEqual({ priority: 1000 })
  })

  it('descendants: every object at any depth below the node, sections included, each once, the node excluded', async () => {
    const about = await allPages(s, '/objects/about/descendants', 'anonymous', 2)
    expect([...about].sort((a, b) => a - b)).toEqual(ids('team', 'deep', 'howto', 'deep-doc').sort((a, b) => a - b))
    expect(about).not.toContain(id('about'))
    const member = await allPages(s, '/objects/about/descendants', 'member', 100)
    expect(new Set(member).size).toBe(member.length)
    expect(member).toContain(id('members-doc'))
    const all = await allPages(s, '/objects/1/descendants', 'anonymous', 9)
    expect(new Set(all).size).toBe(all.length)
    expect([...all].sort((a, b) => a - b)).toEqual(publicTree().sort((a, b) => a - b))
    expect(all.filter((x) => x === id('howto'))).toHaveLength(1) // under news and about, listed once
    expect(idsOf(await s.get('/objects/deep/descendants'))).toEqual(ids('deep-doc'))
  })

  it('siblings: the other children of the first parent; the publication has none (404)', async () => {
    expect(idsOf(await s.get('/objects/howto/siblings'))).toEqual(ids('welcome', 'launch', 'cover'))
    expect(idsOf(await s.get('/objects/team/siblings'))).toEqual(ids('howto'))
    expect(idsOf(await s.get('/objects/team/siblings', 'member'))).toEqual(ids('howto', 'members-doc'))
    expect(idsOf(await s.get('/objects/news/siblings'))).toEqual(ids('about', 'archive'))
    expectError(await s.get('/objects/1/siblings'), 404, 'NO_PARENT')
    expectError(await s.get('/objects/publication/siblings', 'admin'), 404, 'NO_PARENT')
  })

  it('tree lists of a non-section answer 400 NOT_A_TREE_NODE; of a hidden or protected node 404/401/403', async () => {
    for (const filter of ['children', 'sections', 'contents', 'descendants']) {
      for (const ref of ['welcome', 'launch', 'cover']) expectError(await s.get(`/objects/${id(ref)}/${filter}`), 400, 'NOT_A_TREE_NODE')
      expectError(await s.get(`/objects/private-corner/${filter}`), 401, 'OBJECT_PROTECTED')
      expectError(await s.get(`/objects/private-corner/${filter}`, 'outsider'), 403, 'PERMISSION_DENIED')
      expect((await s.get(`/objects/private-corner/${filter}`, 'member')).status).toBe(200)
      expectError(await s.get(`/objects/${id('off-doc')}/${filter}`, 'admin'), 404, 'OBJECT_NOT_FOUND')
    }
    expectError(await s.get('/objects/members-only/siblings', 'outsider'), 403, 'PERMISSION_DENIED')
  })

  it('paging bounds: max 100, bad values 400 naming the parameter, a page past the end is empty with correct totals', async () => {
    const full = await s.get('/objects?page_size=100')
    expect(full.body.paging).toMatchObject({ page_size: 100, page_count: publicTree().length, total_pages: 1 })
    const past = await s.get('/objects?page=50&page_size=10')
    expect(past.status).toBe(200)
    expect(past.body.data.objects).toEqual([])
    expect(past.body.paging).toEqual({ page: 50, page_size: 10, page_count: 0, total: publicTree().length, total_pages: Math.ceil(publicTree().length / 10) })
    const cases: [string, string, string][] = [
      ['page=0', 'INVALID_PARAMETER', 'page'], ['page=-1', 'INVALID_PARAMETER', 'page'], ['page=abc', 'INVALID_PARAMETER', 'page'],
      ['page=1.5', 'INVALID_PARAMETER', 'page'], ['page=', 'INVALID_PARAMETER', 'page'], ['page=1&page=2', 'INVALID_PARAMETER', 'page'],
      ['page_size=0', 'INVALID_PARAMETER', 'page_size'], ['page_size=x', 'INVALID_PARAMETER', 'page_size'],
      ['page_size=101', 'PAGE_SIZE_TOO_LARGE', 'page_size'], ['page_size=99999999999999999999', 'INVALID_PARAMETER', 'page_size'],
    ]
    for (const path of ['/objects', '/objects/news/children', '/objects/1/descendants', '/objects/howto/siblings', '/objects/welcome/relations/attach']) {
      for (const [query, code, parameter] of cases) {
        const res = await s.get(`${path}?${query}`)
        expectError(res, 400, code)
        expect(res.body.error.message).toContain(parameter)
      }
    }
  })

  it('filter[object_type] and filter[query] work on every list, combine with paging and visibility', async () => {
    const events = await s.get('/objects?filter[object_type]=event,image')
    expect(idsOf(events)).toEqual(ids('launch', 'cover').sort((a, b) => a - b))
    expect(events.body.params).toEqual({ 'filter[object_type]': 'event,image' })
    expect(idsOf(await s.get('/objects/news/children?filter[object_type]=document'))).toEqual(ids('welcome', 'howto'))
    expect(idsOf(await s.get('/objects/1/descendants?filter[object_type]=section'))).toEqual(ids('news', 'team', 'deep', 'about', 'archive'))
    expect(idsOf(await s.get('/objects/1/descendants?filter[object_type]=section', 'member'))).toHaveLength(6)
    // case-insensitive, in title, description or body
    const needle = await allPages(s, '/objects?filter[query]=needle', 'anonymous', 3)
    expect(needle).toEqual([id('howto'), ...archive().filter((_, i) => i % 5 === 0)])
    expect(idsOf(await s.get('/objects?filter[query]=WHAT%20IS%20NEW'))).toEqual(ids('news'))
    expect(idsOf(await s.get('/objects/welcome/relations/attach?filter[object_type]=image&filter[query]=logo'))).toEqual(ids('logo'))
    expect(idsOf(await s.get('/objects/howto/siblings?filter[query]=launch'))).toEqual(ids('launch'))
    expect((await s.get('/objects?filter[query]=switched')).body.paging.total).toBe(0)
    expect((await s.get('/objects?filter[query]=members', 'member')).body.paging.total).toBe(1)
    expect((await s.get('/objects?filter[query]=members')).body.paging.total).toBe(0)
    expectError(await s.get('/objects?filter[object_type]=spaceship'), 400, 'INVALID_PARAMETER')
    expectError(await s.get('/objects?filter[object_type]='), 400, 'INVALID_PARAMETER')
    // decisions §15: an unknown filter field is refused naming the parameter as sent
    const colour = await s.get('/objects/news/children?filter[colour]=red')
    expectError(colour, 400, 'INVALID_PARAMETER')
    expect(colour.body.error.details).toEqual({ parameter: 'filter[colour]' })
  })

  it('every list is silently filtered per caller: totals and counts agree with the items', async () => {
    const roles: Role[] = ['anonymous', 'member', 'editor', 'outsider']
    for (const role of roles) {
      const pub = (await s.get('/objects/1', role)).body.data.object
      const kids = await s.get('/objects/1/children', role)
      expect(kids.body.paging.total).toBe(pub.children.count)
      expect((await s.get('/objects/1/sections', role)).body.paging.total).toBe(pub.children.sections.count)
      expect((await s.get('/objects/1/contents', role)).body.paging.total).toBe(pub.children.contents.count)
      const welcome = (await s.get('/objects/welcome', role)).body.data.object
      for (const [name, summary] of Object.entries(welcome.relations as Record<string, { count: number, url: string }>)) {
        const list = await fetch(summary.url, { headers: role === 'anonymous' ? {} : { authorization: `Bearer ${s.tokens[role as Exclude<Role, 'anonymous'>]}` } })
        expect(((await list.json()) as { paging: { total: number } }).paging.total, `${role} ${name}`).toBe(summary.count)
      }
    }
  })
})
