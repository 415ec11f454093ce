import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allPages, expectError, idsOf, login, startSeeded, type Role, type SeededSystem } from './support/seeded.js'
import { checkAnswersOf } from './support/contract-fetch.js'
import { ADMIN, http, removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

type Item = { id: number, title: string | null, nickname: string, object_type: string, publication_date: string | null }

/**
 * Decisions §15 end to end, as a client uses it: every list endpoint takes filters, OR groups, sort,
 * fields, include, cursors and count; refusals name the parameter as sent; filters never reveal what the
 * caller may not read; cached answers follow the writes that change them.
 */
describe('query power (decisions §15)', () => {
  let s: SeededSystem
  const id = (ref: string) => must(s.refs[ref])
  const ids = (...refs: string[]) => refs.map(id)
  const write = (method: string, path: string, data: unknown) =>
    http(s.system.base, method, path, { headers: { authorization: `Bearer ${s.tokens.admin}` }, body: { data } })

  beforeAll(async () => { s = await startSeeded() })
  afterAll(async () => { await s?.stop() })

  /** Every item of a list, page by page, with the fields a local computation needs. */
  async function everything (path: string, role: Role = 'anonymous'): Promise<Item[]> {
    const items: Item[] = []
    for (let page = 1; page < 50; page++) {
      const res = await s.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=100&fields=title,nickname,publication_date`, role)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      items.push(...res.body.data.objects as Item[])
      if (page >= res.body.paging.total_pages) break
    }
    return items
  }

  const byTitleDesc = (a: Item, b: Item) => (a.title === b.title ? a.id - b.id : a.title === null ? 1 : b.title === null ? -1 : a.title < b.title ? 1 : -1)

  it.each([
    ['/objects'], ['/objects/news/children'], ['/objects/about/descendants'], ['/objects/about/contents'], ['/objects/about/sections'],
    ['/objects/howto/siblings'], ['/objects/welcome/relations/seealso'],
  ])('%s: a filter and a sort answer what the whole list, filtered and sorted here, holds', async (path) => {
    for (const role of ['anonymous', 'member'] as const) {
      const all = await everything(path, role)
      const expected = all.filter((o) => (o.title ?? '').toLowerCase().includes('e')).sort(byTitleDesc).map((o) => o.id)
      const got = await allPages(s, `${path}?filter[title][contains]=E&sort=-title`, role, 3)
      expect(got).toEqual(expected)
      const res = await s.get(`${path}?filter[title][contains]=E&sort=-title&page_size=3`, role)
      expect(res.body.paging).toMatchObject({ total: expected.length, total_pages: Math.ceil(expected.length / 3) })
    }
  })

  it('OR groups, date ranges, tags, categories, custom properties and null tests combine', async () => {
    const q = '/objects?filter[or][0][tags]=featured&filter[or][1][categories]=guides&fields=nickname'
    expect(idsOf(await s.get(q)).sort((a, b) => a - b)).toEqual(ids('welcome', 'howto').sort((a, b) => a - b))
    expect(idsOf(await s.get('/objects?filter[publication_date][between]=2024-05-01,2024-05-31&filter[custom_properties.reading_time][starts_with]=2'))).toEqual(ids('welcome'))
    expect(idsOf(await s.get('/objects?filter[publication_date][null]=false'))).toEqual(ids('welcome'))
    expect(idsOf(await s.get('/objects?filter[publication_date][gt]=2024-05-06T05:08:09Z'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[publication_date]=2024-05-06T05:08:09Z'))).toEqual(ids('welcome'))
    expect(idsOf(await s.get('/objects/news/children?filter[object_type][neq]=document&sort=title'))).toEqual(ids('cover', 'launch'))
  })

  it('parent, ancestor and related filters never reveal what the caller may not read', async () => {
    expect(idsOf(await s.get('/objects?filter[parent]=private-corner'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[parent][neq]=private-corner'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[parent]=private-corner', 'member'))).toEqual(ids('inside-private'))
    expect(idsOf(await s.get('/objects?filter[parent]=no-such-object'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[ancestor]=about&filter[object_type]=document')).sort((a, b) => a - b)).toEqual(ids('howto', 'deep-doc').sort((a, b) => a - b))
    expect(idsOf(await s.get('/objects?filter[ancestor]=about&filter[object_type]=document', 'member')).sort((a, b) => a - b)).toEqual(ids('howto', 'members-doc', 'deep-doc').sort((a, b) => a - b))
    expect(idsOf(await s.get('/objects?filter[related.seealso]=members-only'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[related.seealso]=members-only', 'member'))).toEqual(ids('welcome'))
    expect(idsOf(await s.get('/objects?filter[related.attached_to]=welcome'))).toEqual(ids('cover'))
  })

  it('totals count distinct objects whatever multi-valued filters match', async () => {
    const created = await write('POST', '/objects', { object_type: 'document', title: 'Twice tagged', parents: [id('news'), id('archive')], tags: ['featured', 'extra'] })
    expect(created.status).toBe(201)
    const doc = created.body.data.object.id as number
    const res = await s.get('/objects?filter[tags][in]=featured,extra&filter[parent][in]=news,archive&page_size=1')
    expect(res.body.paging.total).toBe(2)
    expect(await allPages(s, '/objects?filter[tags][in]=featured,extra&filter[parent][in]=news,archive', 'anonymous', 1)).toEqual([id('welcome'), doc])
    expect((await write('DELETE', `/objects/${doc}`, undefined)).status).toBe(204)
  })

  it('fields keep what they name with id and object_type; include adds related objects, limited, two levels deep', async () => {
    const one = await s.get('/objects/welcome?fields=title,relations&include=attach,poster.poster_of,seealso&include_limit=1')
    expect(one.status).toBe(200)
    const object = one.body.data.object
    expect(Object.keys(object).sort()).toEqual(['id', 'object_type', 'relations', 'title'])
    // attach is ordered by priority: the logo (1) before the cover (2); the limit keeps one
    expect(object.relations.attach.count).toBe(2)
    expect(object.relations.attach.objects).toHaveLength(1)
    expect(object.relations.attach.objects[0]).toMatchObject({ id: id('logo'), meta: { relation: { priority: 1, params: null } } })
    expect(object.relations.poster.objects[0]).toMatchObject({ id: id('cover') })
    expect(object.relations.poster.objects[0].relations.poster_of.objects.map((o: Item) => o.id)).toEqual([id('welcome')])
    expect((await s.get('/objects/welcome?include=attach&include_limit=2')).body.data.object.relations.attach.objects[1])
      .toMatchObject({ id: id('cover'), meta: { relation: { priority: 2, params: { caption: 'Our cover' } } } })
    expect(object.relations.seealso.objects.map((o: Item) => o.id)).toEqual([id('howto')])
    expect(Object.keys(object.relations.seealso.objects[0]).sort()).toEqual(['id', 'meta', 'object_type', 'relations', 'title'])
    // a relation the object lacks adds nothing; members see the protected related document
    expect(Object.keys((await s.get('/objects/howto?include=poster')).body.data.object.relations)).not.toContain('poster')
    const member = await s.get('/objects/welcome?include=seealso&include_limit=50', 'member')
    expect(member.body.data.object.relations.seealso.objects.map((o: Item) => o.id)).toEqual(ids('howto', 'members-doc'))
    const list = await s.get('/objects/news/children?include=poster&fields=relations&page_size=5')
    const welcome = list.body.data.objects.find((o: Item) => o.id === id('welcome'))
    expect(welcome.relations.poster.objects.map((o: Item) => o.id)).toEqual([id('cover')])
  })

  it('a cursor walk answers every untouched object once while others are added, moved and deleted', async () => {
    const before = await allPages(s, '/objects/archive/children', 'anonymous', 100)
    // deleted and moved ahead of the walk (it reads four at a time from the start)
    const doomed = before.slice(20, 23)
    const moved = must(before[30])
    const untouched = before.filter((x) => !doomed.includes(x) && x !== moved)
    const seen: number[] = []
    let cursor = 'start'
    let step = 0
    for (; step < 100; step++) {
      const res = await s.get(`/objects/archive/children?cursor=${cursor}&page_size=4&count=none&fields=nickname`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.paging).not.toHaveProperty('total')
      seen.push(...idsOf(res))
      if (step === 1) {
        for (const gone of doomed) expect((await write('DELETE', `/objects/${gone}`, undefined)).status).toBe(204)
        expect((await write('POST', '/objects', { object_type: 'document', title: 'Added meanwhile', parents: [id('archive')] })).status).toBe(201)
        expect((await write('PUT', `/objects/archive/children/${moved}`, { priority: 1 })).status).toBe(200)
      }
      if (res.body.paging.next_cursor === null) break
      cursor = res.body.paging.next_cursor
    }
    for (const x of untouched) expect(seen.filter((y) => y === x)).toHaveLength(1)
    for (const x of doomed) expect(seen).not.toContain(x)
    expect(seen.filter((y) => y === moved).length).toBeLessThanOrEqual(1)
  })

  it('a cursor is refused when changed or used on another list, filter or sort, and with page', async () => {
    const first = await s.get('/objects/archive/children?cursor=start&page_size=2&sort=title')
    const next = first.body.paging.next_cursor as string
    expect(first.body.paging).toMatchObject({ page_size: 2, page_count: 2, total: expect.any(Number) })
    expect((await s.get(`/objects/archive/children?cursor=${next}&page_size=2&sort=title`)).status).toBe(200)
    for (const path of [
      `/objects/news/children?cursor=${next}&sort=title`, `/objects/archive/children?cursor=${next}&sort=-title`,
      `/objects/archive/children?cursor=${next}&sort=title&filter[title][contains]=a`, `/objects/archive/children?cursor=${next.slice(0, -2)}xx&sort=title`,
      `/objects/archive/children?cursor=${next}&sort=title&page=2`,
    ]) {
      const res = await s.get(path)
      expectError(res, 400, 'INVALID_PARAMETER')
      expect(res.body.error.details).toEqual({ parameter: 'cursor' })
    }
  })

  it('takes any integer in the id column\'s range as a bound of id comparisons, not an object reference', async () => {
    const all = await allPages(s, '/objects', 'anonymous', 100)
    const welcome = id('welcome')
    for (const bounds of ['filter[id][gt]=0', 'filter[id][gte]=-5', 'filter[id][lt]=2147483647', 'filter[id][lte]=9007199254740991', 'filter[id][between]=-3,2147483647', 'filter[id][neq]=0']) {
      expect(await allPages(s, `/objects?${bounds}`, 'anonymous', 100), bounds).toEqual(all)
    }
    expect(await allPages(s, `/objects?filter[id][lt]=${welcome}`, 'anonymous', 100)).toEqual(all.filter((x) => x < welcome))
    expect(await allPages(s, `/objects?filter[id][between]=-100,${welcome}`, 'anonymous', 100)).toEqual(all.filter((x) => x <= welcome))
    expect(idsOf(await s.get('/objects?filter[id]=0'))).toEqual([])
    expect(idsOf(await s.get('/objects?filter[id][lt]=-1'))).toEqual([])
  })

  it('takes 20 conditions whose bounds are integers and dates', async () => {
    const all = await allPages(s, '/objects', 'anonymous', 100)
    // each parameter is given once: four conditions that AND, and eight OR groups of two
    const conditions = ['filter[id][gt]=0', 'filter[id][gte]=-5', 'filter[created][lt]=now%2B1d', 'filter[created][lte]=2100-01-01',
      ...Array.from({ length: 8 }, (_, g) => [`filter[or][${g}][id][lt]=${2147483647 - g}`, `filter[or][${g}][modified][gte]=now-${g + 9000}d`]).flat()]
    expect(conditions).toHaveLength(20)
    const res = await s.get(`/objects?${conditions.join('&')}&page_size=100`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(idsOf(res)).toEqual(all.slice(0, 100))
    // a 21st is one too many
    const over = await s.get(`/objects?${conditions.join('&')}&filter[or][9][id][gt]=0`)
    expectError(over, 400, 'INVALID_PARAMETER')
    expect(over.body.error.details).toEqual({ parameter: 'filter[or][9][id][gt]' })
  })

  it.each([
    ['/objects?filter[title][gtx]=a', 'filter[title][gtx]'],
    ['/objects?filter[created][gt]=now%2B999999999d', 'filter[created][gt]'],
    ['/objects?filter[or][2][modified][lte]=now-999999999d', 'filter[or][2][modified][lte]'],
    ['/objects?filter[id][gt]=9007199254740992', 'filter[id][gt]'],
    ['/objects?filter[id][gte]=1.5', 'filter[id][gte]'],
    ['/objects?filter[id][between]=-5,', 'filter[id][between]'],
    ['/objects?filter[object_type]=document,', 'filter[object_type]'],
    ['/objects?filter[object_type]=,document', 'filter[object_type]'],
    ['/objects/news/children?filter[object_type]=document,,event', 'filter[object_type]'],
    ['/objects?filter[object_type][in]=document,', 'filter[object_type][in]'],
    ['/objects?filter[tags][nin]=featured,', 'filter[tags][nin]'],
    ['/objects?sort=title,', 'sort'],
    ['/objects?fields=title,', 'fields'],
    ['/objects?include=poster,', 'include'],
    ['/objects?include=attach.', 'include'],
    ['/objects/news/children?include=seealso.seealso&include_limit=50&page_size=100', 'include_limit'],
    ['/objects?include=attach,poster&include_limit=26&page_size=100', 'include_limit'],
    ['/objects?filter[colour]=a', 'filter[colour]'],
    ['/objects?filter[created]=2026-01-01T10:00:00', 'filter[created]'],
    ['/objects?filter[id][between]=1', 'filter[id][between]'],
    ['/objects?filter[or][0][or][1][id]=1', 'filter[or][0][or][1][id]'],
    ['/objects?sort=priority', 'sort'],
    ['/objects?sort=', 'sort'],
    ['/objects?sort=--title', 'sort'],
    ['/objects?fields=colour', 'fields'],
    ['/objects?include=friends', 'include'],
    ['/objects?include=attach.poster.attach', 'include'],
    ['/objects?include_limit=51', 'include_limit'],
    ['/objects?count=maybe', 'count'],
    ['/objects/welcome?sort=id', 'sort'],
    ['/objects/welcome?filter[title]=a', 'filter[title]'],
    ['/objects/welcome?filter[query]=a', 'filter[query]'],
    ['/objects/welcome?filter[object_type]=document', 'filter[object_type]'],
    ['/objects/welcome?cursor=start', 'cursor'],
    ['/objects/welcome?count=none', 'count'],
  ])('%s → 400 INVALID_PARAMETER naming %s', async (path, parameter) => {
    const res = await s.get(path)
    expectError(res, 400, 'INVALID_PARAMETER')
    expect(res.body.error.details).toEqual({ parameter })
  })

  it('cached filtered, sorted and included reads follow the writes that change them', async () => {
    const filtered = '/objects?filter[title][contains]=zebra'
    const sorted = '/objects/news/children?sort=title&fields=title'
    const included = '/objects/welcome?include=poster&fields=title,relations'
    expect((await s.get(filtered)).body.paging.total).toBe(0)
    const firstSorted = idsOf(await s.get(sorted))
    expect((await s.get(included)).body.data.object.relations.poster.objects[0].title).toBe('Cover image')
    expect((await write('POST', '/objects', { id: id('launch'), title: 'A zebra launch' })).status).toBe(200)
    expect((await write('POST', '/objects', { id: id('cover'), title: 'Zebra cover' })).status).toBe(200)
    expect(idsOf(await s.get(filtered))).toEqual(ids('launch', 'cover'))
    const nextSorted = idsOf(await s.get(sorted))
    expect(nextSorted).not.toEqual(firstSorted)
    expect(nextSorted[0]).toBe(id('launch'))
    expect((await s.get(included)).body.data.object.relations.poster.objects[0].title).toBe('Zebra cover')
  })
})

describe('query power below a configured base path', () => {
  let system: RunningSystem
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'query-base-path-'))
    const config = join(dir, 'routes.yaml')
    writeFileSync(config, 'basePath: /api/v2\nobjectTypeEndpoints: [documents]\npathFilters: { GET: [children, relations, parents, ancestors], POST: [], PUT: [], DELETE: [] }\n')
    system = await startSystem({ SEED_DEMO: 'true', CONFIG_FILE: config })
    checkAnswersOf(system.base, '/api/v2')
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
    removeDir(dir)
  })

  it('filters, sort, fields, include and cursors answer under /api/v2, with URLs that keep the base path', async () => {
    const get = (path: string): Promise<Reply> => http(system.base, 'GET', `/api/v2${path}`)
    const list = await get('/documents?sort=-title&fields=title&include=poster&cursor=start&page_size=1')
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.data.objects).toHaveLength(1)
    expect(list.body.paging.next_cursor).toEqual(expect.any(String))
    const next = await get(`/documents?sort=-title&fields=title&include=poster&cursor=${list.body.paging.next_cursor}&page_size=1`)
    expect(next.body.data.objects[0].id).not.toBe(list.body.data.objects[0].id)
    const welcome = await get('/objects/welcome?include=poster')
    expect(welcome.body.data.object.relations.poster.objects[0].relations.poster_of.url).toContain('/api/v2/objects/')
  })

  it('drafts (decisions §16): status=draft reaches object-type reads and ancestors, and preview URLs keep the base path', async () => {
    const { access_token: token } = await login(`${system.base}/api/v2`, ADMIN.username, ADMIN.password)
    const auth = { authorization: `Bearer ${token}` }
    const get = (path: string, headers: Record<string, string> = {}) => http(system.base, 'GET', `/api/v2${path}`, { headers })
    expect((await get('/documents/coming-soon', auth)).status).toBe(404)
    expect((await get('/documents/coming-soon?status=draft', auth)).body.data.object.nickname).toBe('coming-soon')
    expect(idsOf(await get('/documents?status=draft&page_size=100', auth))).toContain((await get('/objects/coming-soon?status=draft', auth)).body.data.object.id)
    expect((await get('/objects/coming-soon/ancestors?status=draft&fields=nickname', auth)).body.data.objects.map((o: { nickname: string }) => o.nickname)).toEqual(['publication', 'news'])
    const made = await http(system.base, 'POST', '/api/v2/objects/coming-soon/preview', { headers: auth })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const url = new URL(made.body.data.preview_url)
    expect(`${url.origin}${url.pathname}`).toMatch(new RegExp(`^${system.base}/api/v2/objects/\\d+/preview$`))
    const read = await http(url.origin, 'GET', url.pathname + url.search)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(read.body.data.object.nickname).toBe('coming-soon')
  })

  it.each([
    ['/objects/welcome/parents?filter[title]=a', 'filter[title]'],
    ['/objects/welcome/ancestors?sort=title', 'sort'],
    ['/objects/welcome/ancestors?cursor=start', 'cursor'],
  ])('parents and ancestors take only fields and include: %s → 400 naming %s', async (path, parameter) => {
    const res = await http(system.base, 'GET', `/api/v2${path}`)
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter } })
    expect((await http(system.base, 'GET', '/api/v2/objects/welcome/parents?fields=nickname&include=poster')).status).toBe(200)
  })
})
