import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, idsOf, startSeeded, type SeededSystem } from './support/seeded.js'
import { http } from './support/system.js'
import { must } from './support/must.js'

describe('reads: envelope, bad input, ETags and the read cache', () => {
  let s: SeededSystem
  let base: string
  const id = (ref: string) => must(s.refs[ref])

  beforeAll(async () => {
    s = await startSeeded()
    base = s.system.base
  })
  afterAll(async () => { await s?.stop() })

  it('the envelope echoes query parameters as raw strings, never access_token, and a url without the query', async () => {
    const res = await s.get(`/objects/news/children?page=1&page_size=5&filter[query]=%20Wel&access_token=${s.tokens.member}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      api: 'objects', method: 'get', url: `${base}/objects/news/children`,
      params: { page: '1', page_size: '5', 'filter[query]': ' Wel' },
    })
    expect(JSON.stringify(res.body)).not.toContain(s.tokens.member)
    const only = await s.get(`/objects/welcome?access_token=${s.tokens.member}`)
    expect(only.body.params).toEqual([])
    expect(only.body.url).toBe(`${base}/objects/welcome`)
  })

  it('malformed ids are 400, unknown ids and nicknames 404, and nothing ever answers 5xx', async () => {
    for (const raw of ['0', '00', '9007199254740992', '99999999999999999999999999']) {
      expectError(await s.get(`/objects/${raw}`), 400, 'INVALID_OBJECT_ID')
      expectError(await s.get(`/objects/${raw}/children`), 400, 'INVALID_OBJECT_ID')
    }
    expect((await s.get(`/objects/00${id('welcome')}`)).body.data.object.id).toBe(id('welcome'))
    for (const raw of ['987654', '9007199254740991', 'no-such-nickname', '-5', '1.5', 'a%20b', 'a%2Fb', 'x'.repeat(2000), '%C3%A9t%C3%A9']) {
      expectError(await s.get(`/objects/${raw}`), 404, 'OBJECT_NOT_FOUND')
      expectError(await s.get(`/objects/${raw}/relations`), 404, 'OBJECT_NOT_FOUND')
    }
    const bad = [
      '/objects/%E0%A4%A', '/objects/welcome/relations/attach/0', '/objects/welcome/relations/attach/abc', '/objects/welcome/relations/attach/-1',
      `/objects/welcome/relations/attach/${'9'.repeat(30)}`, '/objects/news/children/0', '/objects/news/children/x', '/objects/news/children/1e3',
      '/objects/1/grandchildren', '/objects/1/children/2/3', '/objects/1/relations/attach/2/3', '/objects/1/descendants/x',
      '/objects/1/siblings/x', '/objects/1/sections/1', '/me/x', '/objects?colour=blue', '/objects/1?colour=blue',
      '/objects/welcome/relations?colour=blue', '/objects/news/children/1?sort=x', '/?x=1', '/objects?page[number]=1',
    ]
    for (const path of bad) {
      const res = await s.get(path)
      expect(res.status, path).toBe(400)
      expect(res.body.error.url, path).toBe(`${base}${path.split('?')[0]}`)
    }
    expectError(await s.get('/objects/1/children/2/3'), 400, 'SURPLUS_PATH_SEGMENTS')
    expectError(await s.get('/objects/welcome/relations/attach/0'), 400, 'INVALID_PARAMETER')
    const unknown = await s.get('/objects/1?colour=blue')
    expectError(unknown, 400, 'UNKNOWN_QUERY_PARAMETER')
    expect(unknown.body.error.message).toContain('colour')
    expect(unknown.body.error.message).toContain('accepted')
  })

  it('tree lists on a non-section answer 400, relation names not valid for the type 400', async () => {
    expectError(await s.get('/objects/welcome/descendants'), 400, 'NOT_A_TREE_NODE')
    expectError(await s.get('/objects/cover/relations/attach/1'), 404, 'RELATION_NOT_FOUND')
    expectError(await s.get('/objects/cover/relations/nope'), 400, 'UNKNOWN_RELATION')
  })

  it('reads carry a strong ETag; If-None-Match answers 304 without a body; no-cache anonymous, private with a token', async () => {
    for (const path of ['/objects/welcome', '/objects/news/children', '/objects/welcome/relations', '/objects/welcome/relations/attach', '/objects']) {
      const first = await fetch(base + path)
      const etag = must(first.headers.get('etag'))
      expect(etag, path).toMatch(/^"[^"]+"$/)
      expect(first.headers.get('cache-control')).toBe('no-cache')
      const again = await fetch(base + path, { headers: { 'if-none-match': etag } })
      expect(again.status, path).toBe(304)
      expect(await again.text()).toBe('')
      expect((await fetch(base + path, { headers: { 'if-none-match': `W/${etag}, "other"` } })).status).toBe(304)
      expect((await fetch(base + path, { headers: { 'if-none-match': '"other"' } })).status).toBe(200)
      const withToken = await fetch(base + path, { headers: { authorization: `Bearer ${s.tokens.member}` } })
      expect(withToken.headers.get('cache-control'), path).toBe('private')
      const viaQuery = await fetch(`${base}${path}?access_token=${s.tokens.member}`)
      expect(viaQuery.headers.get('cache-control'), path).toBe('private')
    }
    const head = await fetch(`${base}/objects/howto`, { method: 'HEAD' })
    const get = await fetch(`${base}/objects/howto`)
    expect(head.status).toBe(200)
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'))
  })

  it('member and anonymous callers never share cached bodies, in either order, by header or query token', async () => {
    for (let round = 0; round < 3; round++) {
      const anonymous = await s.get('/objects/welcome')
      const member = await s.get('/objects/welcome', 'member')
      const viaQuery = await s.get(`/objects/welcome?access_token=${s.tokens.member}`)
      expect(anonymous.body.data.object.relations.seealso.count).toBe(1)
      expect(member.body.data.object.relations.seealso.count).toBe(2)
      expect(viaQuery.body.data.object.relations.seealso.count).toBe(2)
      expect(anonymous.headers.get('etag')).not.toBe(member.headers.get('etag'))
      expect(idsOf(await s.get('/objects/about/children', 'member'))).toContain(id('members-doc'))
      expect(idsOf(await s.get('/objects/about/children'))).not.toContain(id('members-doc'))
      expect(idsOf(await s.get('/objects/about/children', 'outsider'))).not.toContain(id('members-doc'))
      expect((await s.get('/objects/members-only', 'member')).status).toBe(200)
      expectError(await s.get('/objects/members-only'), 401, 'OBJECT_PROTECTED')
      expectError(await s.get('/objects/members-only', 'outsider'), 403, 'PERMISSION_DENIED')
    }
  })

  it('a write through the API is visible to the next read: no stale single reads, lists, counts or ETags', async () => {
    const admin = { authorization: `Bearer ${s.tokens.editor}` }
    const before = await fetch(`${base}/objects/howto`)
    const etag = must(before.headers.get('etag'))
    const beforeChildren = await s.get('/objects/news/children')
    const beforeNews = await s.get('/objects/news')
    await s.get('/objects/news/children', 'member') // warm the member's entries too

    const update = await http(base, 'POST', '/objects', { headers: admin, body: { data: { id: id('howto'), title: 'How to read, revised' } } })
    expect(update.status, JSON.stringify(update.body)).toBe(200)
    const after = await fetch(`${base}/objects/howto`, { headers: { 'if-none-match': etag } })
    expect(after.status).toBe(200)
    expect(((await after.json()) as { data: { object: { title: string } } }).data.object.title).toBe('How to read, revised')
    const titles = (await s.get('/objects/news/children')).body.data.objects.map((o: { title: string }) => o.title)
    expect(titles).toContain('How to read, revised')

    const created = await http(base, 'POST', '/objects', { headers: admin, body: { data: { object_type: 'document', title: 'Fresh news', parents: [id('news')] } } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const newId = created.body.data.object.id
    const children = await s.get('/objects/news/children')
    expect(idsOf(children)).toEqual([...idsOf(beforeChildren), newId])
    expect(idsOf(await s.get('/objects/news/children', 'member'))).toContain(newId)
    expect((await s.get('/objects/news')).body.data.object.children.count).toBe(beforeNews.body.data.object.children.count + 1)

    const removed = await http(base, 'DELETE', `/objects/news/children/${newId}`, { headers: admin })
    expect(removed.status).toBe(204)
    expect(idsOf(await s.get('/objects/news/children'))).toEqual(idsOf(beforeChildren))
  })
})
