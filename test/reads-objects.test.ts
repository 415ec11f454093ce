import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATE, expectError, idsOf, startSeeded, type Role, type SeededSystem } from './support/seeded.js'
import { must } from './support/must.js'

/** Spec 2.3 field → the JSON type a client may expect ('string|null' = either). */
const OBJECT_FIELDS: Record<string, string> = {
  id: 'integer', object_type_id: 'integer', object_type: 'string',
  title: 'string|null', description: 'string|null', subject: 'string|null', abstract: 'string|null', body: 'string|null', note: 'string|null',
  nickname: 'string', lang: 'string', rights: 'string', license: 'string', creator: 'string', publisher: 'string', comments: 'string',
  valid: 'boolean', start_date: 'date|null', end_date: 'date|null', publication_date: 'date|null', created: 'date', modified: 'date',
  authorized: 'boolean', free_access: 'boolean', languages: 'object', relations: 'object', custom_properties: 'object',
  geo_tags: 'array', tags: 'array', categories: 'array',
}

function typeOf (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  if (typeof value === 'string' && DATE.test(value)) return 'date'
  return typeof value
}

function expectSpecObject (object: Record<string, unknown>): void {
  for (const [field, expected] of Object.entries(OBJECT_FIELDS)) {
    const actual = typeOf(object[field])
    const allowed = expected.split('|').flatMap((t) => (t === 'string' ? ['string', 'date'] : [t]))
    expect(allowed, `${field} is ${actual}`).toContain(actual)
  }
}

describe('single-object reads against the spec', () => {
  let s: SeededSystem
  let base: string
  const id = (ref: string) => must(s.refs[ref])

  beforeAll(async () => {
    s = await startSeeded()
    base = s.system.base
  })
  afterAll(async () => { await s?.stop() })

  it('GET /objects/{id} and /objects/{nickname} answer the same object with every field of spec 2.3 typed', async () => {
    const byId = await s.get(`/objects/${id('welcome')}`)
    const byNick = await s.get('/objects/welcome')
    expect(byId.status).toBe(200)
    expect(byNick.body.data).toEqual(byId.body.data)
    expect(Object.keys(byId.body).sort()).toEqual(['api', 'data', 'method', 'params', 'url'])
    expect(byId.body).toMatchObject({ api: 'objects', method: 'get', params: [], url: `${base}/objects/${id('welcome')}` })
    const o = byId.body.data.object
    expectSpecObject(o)
    expect(o).toMatchObject({
      id: id('welcome'), object_type: 'document', object_type_id: 22, nickname: 'welcome', title: 'Welcome',
      description: 'A first document', abstract: 'Short', subject: null, note: null, lang: 'en', rights: 'CC', creator: 'Ann',
      license: '', publisher: '', comments: 'on', valid: true, authorized: true, free_access: true,
      start_date: '2001-01-01T00:00:00+0000', end_date: null, publication_date: '2024-05-06T05:08:09+0000',
      languages: { it: { title: 'Benvenuti' } }, custom_properties: { reading_time: '2 min' },
      tags: [{ label: 'Featured', name: 'featured' }], geo_tags: [],
    })
    expect(o.categories).toEqual([{ id: expect.any(Number), area_id: null, label: 'Announcements', name: 'announcements' }])
    expect(o).not.toHaveProperty('children')
  })

  it('relation summaries list every relation name with counts of what the caller may read and absolute URLs by id', async () => {
    const url = (name: string) => `${base}/objects/${id('welcome')}/relations/${name}`
    const anonymous = (await s.get('/objects/welcome')).body.data.object.relations
    expect(anonymous).toEqual({
      attach: { count: 2, url: url('attach') }, poster: { count: 1, url: url('poster') }, seealso: { count: 1, url: url('seealso') },
    })
    const member = (await s.get('/objects/welcome', 'member')).body.data.object.relations
    expect(member.seealso).toEqual({ count: 2, url: url('seealso') })
    // the inverse side of each relation shows too
    const cover = (await s.get('/objects/cover')).body.data.object.relations
    expect(Object.keys(cover).sort()).toEqual(['attached_to', 'poster_of'])
    // GET …/relations answers the same summaries, whether the path names the id or the nickname
    for (const path of ['/objects/welcome/relations', `/objects/${id('welcome')}/relations`]) {
      const res = await s.get(path)
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual(anonymous)
      expect(res.body).not.toHaveProperty('paging')
    }
    expect((await s.get('/objects/welcome/relations', 'member')).body.data).toEqual(member)
    expect((await s.get('/objects/1/relations')).body.data).toEqual({})
  })

  it('children summaries only on sections and the publication, counting what the caller may read', async () => {
    const pub = (await s.get('/objects/1')).body.data.object
    expect(pub).toMatchObject({ object_type: 'area', object_type_id: 1 })
    const node = (oid: number, all: number, sections: number) => ({
      count: all, url: `${base}/objects/${oid}/children`,
      contents: { count: all - sections, url: `${base}/objects/${oid}/contents` },
      sections: { count: sections, url: `${base}/objects/${oid}/sections` },
    })
    expect(pub.children).toEqual(node(1, 3, 3)) // news, about, archive; the protected section is left out
    expect((await s.get('/objects/1', 'member')).body.data.object.children).toEqual(node(1, 4, 4))
    // news: welcome, howto, launch, cover; not the off, future or past documents
    expect((await s.get('/objects/news', 'editor')).body.data.object.children).toEqual(node(id('news'), 4, 0))
    expect((await s.get('/objects/about')).body.data.object.children).toEqual(node(id('about'), 2, 1))
    expect((await s.get('/objects/about', 'member')).body.data.object.children).toEqual(node(id('about'), 3, 1))
    for (const ref of ['welcome', 'launch', 'cover']) expect((await s.get(`/objects/${id(ref)}`)).body.data.object).not.toHaveProperty('children')
  })

  it('an event shows its date items (days distinct and sorted) and geo tags with the read shape of spec 2.5', async () => {
    const o = (await s.get('/objects/launch')).body.data.object
    expectSpecObject(o)
    expect(o.date_items).toEqual([{ start_date: '2026-12-01T18:00:00+0000', end_date: '2026-12-01T22:00:00+0000', days: [2, 5] }])
    expect(o.geo_tags).toHaveLength(1)
    const g = o.geo_tags[0]
    expect(g).toMatchObject({ object_id: id('launch'), latitude: 45.07, longitude: 7.68, address: '1 Example Street' })
    expect(Number.isInteger(g.id)).toBe(true)
    expect(typeOf(g.gmaps_lookats.zoom)).toBe('integer')
    expect(typeof g.gmaps_lookats.mapType).toBe('string')
    for (const k of ['latitude', 'longitude', 'range']) expect(typeof g.gmaps_lookats[k]).toBe('number')
  })

  it('a protected object: anonymous 401, outsider and editor 403, member 200 with free_access false', async () => {
    const cases: [Role, number, string | null][] = [
      ['anonymous', 401, 'OBJECT_PROTECTED'], ['outsider', 403, 'PERMISSION_DENIED'], ['editor', 403, 'PERMISSION_DENIED'], ['member', 200, null],
    ]
    for (const path of ['/objects/members-only', `/objects/${id('members-doc')}`, '/objects/members-only/relations', '/objects/private-corner/children']) {
      for (const [role, status, code] of cases) {
        const res = await s.get(path, role)
        if (code) expectError(res, status, code)
        else expect(res.status, `${role} ${path}`).toBe(200)
      }
    }
    const o = (await s.get('/objects/members-only', 'member')).body.data.object
    expect(o).toMatchObject({ authorized: true, free_access: false })
    // permissions are not inherited: a public document inside the protected section is readable
    expect((await s.get('/objects/inside-private')).status).toBe(200)
  })

  it('off objects and objects outside their publication window are 404 for everyone, by id and nickname', async () => {
    for (const ref of ['off-doc', 'future-doc', 'past-doc']) {
      const nick = (await s.get(`/objects/${id(ref)}`, 'member')).status
      expect(nick).toBe(404)
      for (const role of ['anonymous', 'member', 'editor', 'admin'] as Role[]) {
        expectError(await s.get(`/objects/${id(ref)}`, role), 404, 'OBJECT_NOT_FOUND')
        expectError(await s.get(`/objects/${id(ref)}/relations`, role), 404, 'OBJECT_NOT_FOUND')
      }
    }
    for (const nick of ['switched-off', 'not-yet', 'gone']) expectError(await s.get(`/objects/${nick}`, 'admin'), 404, 'OBJECT_NOT_FOUND')
  })

  it('a medium that is only related, not on the tree, can still be read', async () => {
    expect((await s.get('/objects/logo')).body.data.object).toMatchObject({ id: id('logo'), object_type: 'image', object_type_id: 12 })
  })
})

describe('relation and child reads', () => {
  let s: SeededSystem
  const id = (ref: string) => must(s.refs[ref])

  beforeAll(async () => { s = await startSeeded() })
  afterAll(async () => { await s?.stop() })

  it('GET …/relations/{name} is a paged data.objects list by priority with meta.relation {priority, params}', async () => {
    const res = await s.get('/objects/welcome/relations/attach')
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['api', 'data', 'method', 'paging', 'params', 'url'])
    expect(res.body.paging).toEqual({ page: 1, page_size: 20, page_count: 2, total: 2, total_pages: 1 })
    expect(idsOf(res)).toEqual([id('logo'), id('cover')])
    expect(res.body.data.objects.map((o: { meta: unknown }) => o.meta)).toEqual([
      { relation: { priority: 1, params: null } }, { relation: { priority: 2, params: { caption: 'Our cover' } } },
    ])
    expectSpecObject(res.body.data.objects[0])
    const inverse = await s.get(`/objects/${id('cover')}/relations/attached_to`)
    expect(idsOf(inverse)).toEqual([id('welcome')])
    expect(inverse.body.data.objects[0].meta.relation.params).toEqual({ caption: 'Our cover' })
    const page2 = await s.get('/objects/welcome/relations/attach?page=2&page_size=1')
    expect(idsOf(page2)).toEqual([id('cover')])
    expect(page2.body.paging).toEqual({ page: 1 + 1, page_size: 1, page_count: 1, total: 2, total_pages: 2 })
  })

  it('relation lists leave out what the caller may not read, and never show off or out-of-window objects', async () => {
    const anonymous = await s.get('/objects/welcome/relations/seealso')
    expect(idsOf(anonymous)).toEqual([id('howto')])
    expect(anonymous.body.paging.total).toBe(1)
    expect(anonymous.body.data.objects[0].meta.relation).toEqual({ priority: 1, params: { why: 'guide' } })
    const member = await s.get('/objects/welcome/relations/seealso', 'member')
    expect(idsOf(member)).toEqual([id('howto'), id('members-doc')])
    expect(member.body.paging.total).toBe(2)
    // administrators read every object, protected or not (decisions §7)
    expect(idsOf(await s.get('/objects/welcome/relations/seealso', 'admin'))).toEqual([id('howto'), id('members-doc')])
    // seealso is symmetric: the other side lists welcome
    expect(idsOf(await s.get('/objects/howto/relations/seealso'))).toEqual([id('welcome')])
    expect(idsOf(await s.get('/objects/welcome/relations/seealso?filter[object_type]=image'))).toEqual([])
  })

  it('GET …/relations/{name}/{related_id} answers the relation detail; a hidden or absent one is 404', async () => {
    const detail = await s.get(`/objects/welcome/relations/attach/${id('cover')}`)
    expect(detail.status).toBe(200)
    expect(detail.body.data).toEqual({ priority: 2, params: { caption: 'Our cover' } })
    expect((await s.get(`/objects/welcome/relations/attach/${id('logo')}`)).body.data).toEqual({ priority: 1, params: null })
    expect((await s.get(`/objects/${id('cover')}/relations/poster_of/${id('welcome')}`)).body.data.priority).toEqual(expect.any(Number))
    expect((await s.get(`/objects/welcome/relations/seealso/${id('members-doc')}`, 'member')).status).toBe(200)
    expectError(await s.get(`/objects/welcome/relations/seealso/${id('members-doc')}`), 404, 'RELATION_NOT_FOUND')
    for (const ref of ['off-doc', 'future-doc']) {
      expectError(await s.get(`/objects/welcome/relations/seealso/${id(ref)}`, 'admin'), 404, 'RELATION_NOT_FOUND')
    }
    expectError(await s.get(`/objects/welcome/relations/attach/${id('howto')}`), 404, 'RELATION_NOT_FOUND')
    expectError(await s.get('/objects/welcome/relations/attach/987654'), 404, 'RELATION_NOT_FOUND')
  })

  it('GET …/children/{child_id} answers the child position; a hidden child or a non-child is 404', async () => {
    const about = await s.get('/objects/about/children', 'member')
    const kids = idsOf(about)
    expect(kids).toEqual([id('team'), id('howto'), id('members-doc')])
    for (const [i, child] of kids.entries()) {
      const res = await s.get(`/objects/about/children/${child}`, 'member')
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual({ priority: i + 1 })
    }
    expectError(await s.get(`/objects/about/children/${id('members-doc')}`), 404, 'CHILD_NOT_FOUND')
    expectError(await s.get(`/objects/news/children/${id('off-doc')}`, 'admin'), 404, 'CHILD_NOT_FOUND')
    expectError(await s.get(`/objects/news/children/${id('team')}`), 404, 'CHILD_NOT_FOUND')
    expectError(await s.get(`/objects/private-corner/children/${id('inside-private')}`), 401, 'OBJECT_PROTECTED')
  })

  it('unknown relation names 400, an inverse name not valid for the type 400', async () => {
    expectError(await s.get('/objects/welcome/relations/nope'), 400, 'UNKNOWN_RELATION')
    expectError(await s.get('/objects/welcome/relations/attached_to'), 400, 'UNKNOWN_RELATION')
    expectError(await s.get(`/objects/welcome/relations/nope/${id('cover')}`), 400, 'UNKNOWN_RELATION')
  })
})
