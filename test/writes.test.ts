import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { BASE_FIXTURES, PEOPLE, type BaseRefs, client, create, expectError, listIds, login, seed, type Client } from './support/writer.js'

describe('writes through the API: objects, relations, children, permissions', () => {
  let system: RunningSystem
  let admin: Client
  let refs: BaseRefs
  /** the small publication built by the first test */
  const pub = { culture: 0, music: 0, doc: 0, doc2: 0, img1: 0, img2: 0, img3: 0, event: 0 }

  beforeAll(async () => {
    system = await startSystem()
    refs = seed(system.dataDir, BASE_FIXTURES) as BaseRefs
    admin = client(system.base, await login(system.base))
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const read = async (id: number | string) => {
    const res = await admin.get(`/objects/${id}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.data.object
  }

  it('creates sections, documents, an event and images: 201, Location, the body is the object as read', async () => {
    const res = await admin.post('/objects', { object_type: 'section', title: 'Culture', parents: [1], categories: ['culture-cat'] })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ api: 'objects', url: `${system.base}/objects` })
    const section = res.body.data.object
    expect(res.headers.get('location')).toBe(`${system.base}/objects/${section.id}`)
    expect(section).toMatchObject({ object_type: 'section', object_type_id: 3, nickname: 'culture', categories: [{ name: 'culture-cat', label: 'Culture' }] })
    expect(section).toEqual(await read(section.id))
    pub.culture = section.id
    pub.music = await create(admin, { object_type: 'section', title: 'Music', parents: [pub.culture] })
    pub.doc = await create(admin, { object_type: 'document', title: 'Hello', body: '<p>hi</p>', parents: [pub.culture], tags: ['brand-new-tag'] })
    pub.doc2 = await create(admin, { object_type: 'document', title: 'Second', parents: [pub.culture, pub.music] })
    pub.img1 = await create(admin, { object_type: 'image', title: 'Picture one', parents: [pub.culture] })
    pub.img2 = await create(admin, { object_type: 'image', title: 'Picture two', parents: [pub.music] })
    pub.img3 = await create(admin, { object_type: 'image', title: 'Picture three', parents: [pub.music] })
    const ids = [pub.culture, pub.music, pub.doc, pub.doc2, pub.img1, pub.img2, pub.img3]
    expect(new Set(ids).size).toBe(ids.length)
    const doc = await read(pub.doc)
    expect(doc).toMatchObject({ title: 'Hello', body: '<p>hi</p>', nickname: 'hello', tags: [{ name: 'brand-new-tag', label: 'brand-new-tag' }] })
    expect(doc.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/)
    expect(await listIds(admin, `/objects/${pub.culture}/children`)).toEqual([pub.music, pub.doc, pub.doc2, pub.img1])
    expect((await read(pub.culture)).children).toMatchObject({ count: 4, sections: { count: 1 }, contents: { count: 3 } })
  })

  it('an event keeps its date items (zones converted, days distinct and sorted) and geo tags', async () => {
    const res = await admin.post('/objects', {
      object_type: 'event', title: 'Concert', parents: [pub.music], start_date: '2026-01-01T00:00:00Z',
      date_items: [{ start_date: '2026-12-01T18:00:00+02:00', end_date: '2026-12-01T22:30:00.250+0200', days: [5, 1, 1] }],
      geo_tags: [{ title: 'Hall', address: '1 Street', latitude: 45.5, longitude: 7.25 }, { latitude: 1, longitude: 2, gmaps_lookats: { zoom: 9, mapType: 'satellite' } }],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    pub.event = res.body.data.object.id
    const event = await read(pub.event)
    expect(event.date_items).toEqual([{ start_date: '2026-12-01T16:00:00+0000', end_date: '2026-12-01T20:30:00+0000', days: [1, 5] }])
    expect(event.start_date).toBe('2026-01-01T00:00:00+0000')
    expect(event.geo_tags).toMatchObject([
      { title: 'Hall', address: '1 Street', latitude: 45.5, longitude: 7.25, object_id: pub.event },
      // a map view as written, its fields named alike in and out (mapType), the rest defaulted
      { title: '', address: '', latitude: 1, longitude: 2, gmaps_lookats: { zoom: 9, mapType: 'satellite', latitude: 0, longitude: 0, range: 0 } },
    ])
    expect(res.body.data.object).toEqual(event)
  })

  it('nicknames are generated from the title; a taken explicit nickname is 409 and creates nothing', async () => {
    const nick = async (data: Record<string, unknown>) => (await read(await create(admin, { object_type: 'document', parents: [pub.music], ...data }))).nickname
    expect(await nick({ title: 'Hello' })).toBe('hello-1')
    expect(await nick({ title: 'Hello' })).toBe('hello-2')
    expect(await nick({ title: '  Ça va? Über   Straße!! ' })).toBe('ca-va-uber-strasse')
    expect(await nick({ title: '2024' })).toBe('n2024')
    const untitled = await create(admin, { object_type: 'document', parents: [pub.music] })
    expect((await read(untitled)).nickname).toBe(`document-${untitled}`)
    expect(await nick({ title: 'x', nickname: 'my-own_name' })).toBe('my-own_name')
    const before = await listIds(admin, `/objects/${pub.music}/children`)
    const taken = await admin.post('/objects', { object_type: 'document', title: 'Dup', nickname: 'my-own_name', parents: [pub.music] })
    expectError(taken, 409, 'NICKNAME_TAKEN')
    expect(await listIds(admin, `/objects/${pub.music}/children`)).toEqual(before)
    expectError(await admin.post('/objects', { id: pub.doc2, nickname: 'hello' }), 409, 'NICKNAME_TAKEN')
    expect((await read(pub.doc2)).nickname).toBe('second')
  })

  it('generated nicknames stay within the explicit-nickname limit; punctuation-only titles fall back to <type>-<id>', async () => {
    const long = await read(await create(admin, { object_type: 'document', title: 'word '.repeat(200), parents: [pub.music] }))
    expect(long.nickname.length).toBeLessThanOrEqual(255)
    expect(long.nickname).toMatch(/^word-word-/)
    const again = await read(await create(admin, { object_type: 'document', title: 'word '.repeat(200), parents: [pub.music] }))
    expect(again.nickname.length).toBeLessThanOrEqual(255)
    expect(again.nickname).not.toBe(long.nickname)
    expect((await admin.get(`/objects/${again.nickname}`)).body.data.object.id).toBe(again.id)
    const bang = await create(admin, { object_type: 'image', title: '!!!', parents: [pub.music] })
    expect((await read(bang)).nickname).toBe(`image-${bang}`)
  })

  it('writes address objects by nickname too, and a relation can be written from its inverse side', async () => {
    const a = await create(admin, { object_type: 'document', title: 'Nick subject', nickname: 'nick-subject', parents: [pub.music] })
    const img = await create(admin, { object_type: 'image', title: 'Nick image', nickname: 'nick-image', parents: [pub.music] })
    const inverse = await admin.post('/objects/nick-image/relations/attached_to', { related_id: a })
    expect(inverse.status).toBe(201)
    expect(await listIds(admin, '/objects/nick-subject/relations/attach')).toEqual([img])
    expect((await admin.put(`/objects/nick-subject/relations/attach/${img}`, { priority: 4 })).status).toBe(200)
    expect((await admin.get(`/objects/${a}/relations/attach/${img}`)).body.data.priority).toBe(4)
    expect((await admin.del(`/objects/nick-subject/relations/attach/${img}`)).status).toBe(204)
    expect(await listIds(admin, `/objects/${img}/relations/attached_to`)).toEqual([])
    expectError(await admin.post('/objects/nick-image/relations/attach', { related_id: a }), 400, 'VALIDATION_FAILED')
    expect((await admin.del('/objects/nick-subject')).status).toBe(204)
    expectError(await admin.get(`/objects/${a}`), 404, 'OBJECT_NOT_FOUND')
  })

  it('relations: 201 + Location then 200, max+1 priorities, inverse rows, counts and meta.relation', async () => {
    const path = `/objects/${pub.doc}/relations/attach`
    const first = await admin.post(path, { related_id: pub.img1 })
    expect(first.status).toBe(201)
    expect(first.headers.get('location')).toBe(`${system.base}${path}`)
    expect(first.body.data).toEqual([{ related_id: pub.img1, priority: 1, params: null }])
    const again = await admin.post(path, { related_id: pub.img1 })
    expect(again.status).toBe(200)
    expect(again.headers.get('location')).toBeNull()
    expect(again.body.data).toEqual([{ related_id: pub.img1, priority: 1, params: null }])
    const many = await admin.post(path, [{ related_id: pub.img2, params: { caption: 'two' } }, { related_id: pub.img3 }])
    expect(many.status).toBe(201)
    expect(many.body.data).toEqual([{ related_id: pub.img2, priority: 2, params: { caption: 'two' } }, { related_id: pub.img3, priority: 3, params: null }])
    const listed = await admin.get(path)
    expect(listed.body.data.objects.map((o: { id: number, meta: { relation: unknown } }) => [o.id, o.meta.relation])).toEqual([
      [pub.img1, { priority: 1, params: null }], [pub.img2, { priority: 2, params: { caption: 'two' } }], [pub.img3, { priority: 3, params: null }]])
    expect(listed.body.paging).toMatchObject({ total: 3, page_count: 3 })
    const back = await admin.get(`/objects/${pub.img2}/relations/attached_to`)
    expect(back.body.data.objects.map((o: { id: number, meta: { relation: unknown } }) => [o.id, o.meta.relation])).toEqual([[pub.doc, { priority: 1, params: { caption: 'two' } }]])
    expect((await read(pub.doc)).relations).toEqual({ attach: { count: 3, url: `${system.base}${path}` } })
    expect((await read(pub.img1)).relations).toEqual({ attached_to: { count: 1, url: `${system.base}/objects/${pub.img1}/relations/attached_to` } })
    const summary = await admin.get(`/objects/${pub.doc}/relations`)
    expect(summary.body.data).toEqual({ attach: { count: 3, url: `${system.base}${path}` } })
    const explicit = await admin.post(`/objects/${pub.doc}/relations/seealso`, { related_id: pub.doc2, priority: 9 })
    expect(explicit.status).toBe(201)
    expect(explicit.body.data).toEqual([{ related_id: pub.doc2, priority: 9, params: null }])
    expect((await admin.get(`/objects/${pub.doc2}/relations/seealso/${pub.doc}`)).body.data).toEqual({ priority: 1, params: null })
  })

  it('PUT replaces params and priority, the omitted one becomes null; 404 for a relation that does not exist', async () => {
    const path = `/objects/${pub.doc}/relations/attach/${pub.img2}`
    const params = await admin.put(path, { params: { caption: 'new' } })
    expect(params.status).toBe(200)
    expect(params.body.data).toEqual({ priority: null, params: { caption: 'new' } })
    expect((await admin.get(path)).body.data).toEqual({ priority: null, params: { caption: 'new' } })
    expect((await admin.get(`/objects/${pub.img2}/relations/attached_to/${pub.doc}`)).body.data.params).toEqual({ caption: 'new' })
    const priority = await admin.put(path, { priority: 5 })
    expect(priority.body.data).toEqual({ priority: 5, params: null })
    expect((await admin.get(path)).body.data).toEqual({ priority: 5, params: null })
    expectError(await admin.put(`/objects/${pub.doc}/relations/attach/${pub.doc2}`, { priority: 1 }), 404, 'RELATION_NOT_FOUND')
    expectError(await admin.put(`/objects/${pub.doc}/relations/attach/${pub.img2}`, {}), 400, 'VALIDATION_FAILED')
  })

  it('DELETE a relation removes both rows from either side; a repeated delete is 404', async () => {
    expect((await admin.del(`/objects/${pub.doc}/relations/attach/${pub.img3}`)).status).toBe(204)
    expectError(await admin.get(`/objects/${pub.img3}/relations/attached_to/${pub.doc}`), 404, 'RELATION_NOT_FOUND')
    expectError(await admin.del(`/objects/${pub.doc}/relations/attach/${pub.img3}`), 404, 'RELATION_NOT_FOUND')
    expect((await admin.del(`/objects/${pub.img2}/relations/attached_to/${pub.doc}`)).status).toBe(204)
    expectError(await admin.get(`/objects/${pub.doc}/relations/attach/${pub.img2}`), 404, 'RELATION_NOT_FOUND')
    expect(await listIds(admin, `/objects/${pub.doc}/relations/attach`)).toEqual([pub.img1])
    expect((await read(pub.img3)).relations).toEqual({})
    expect((await read(pub.doc)).relations.attach.count).toBe(1)
    // a new relation after deletions still gets max+1
    expect((await admin.post(`/objects/${pub.doc}/relations/attach`, { related_id: pub.img3 })).body.data[0].priority).toBe(2)
  })

  it('children: append 201, explicit priority, 200 for existing ones, PUT priority, order as read', async () => {
    const path = `/objects/${pub.music}/children`
    const before = await listIds(admin, path)
    const added = await admin.post(path, { child_id: pub.doc })
    expect(added.status).toBe(201)
    expect(added.headers.get('location')).toBe(`${system.base}${path}`)
    const top = (await admin.get(`${path}/${before.at(-1)}`)).body.data.priority as number
    expect(added.body.data).toEqual([{ child_id: pub.doc, priority: top + 1 }])
    const same = await admin.post(path, [{ child_id: pub.doc }])
    expect(same.status).toBe(200)
    expect(same.body.data).toEqual([{ child_id: pub.doc, priority: top + 1 }])
    const explicit = await admin.post(path, [{ child_id: pub.img1, priority: 0 }, { child_id: pub.doc, priority: top + 5 }])
    expect(explicit.status).toBe(201)
    expect(explicit.body.data).toEqual([{ child_id: pub.img1, priority: 0 }, { child_id: pub.doc, priority: top + 5 }])
    const put = await admin.put(`${path}/${pub.doc2}`, { priority: top + 9 })
    expect(put.status).toBe(200)
    expect(put.body.data).toEqual({ priority: top + 9 })
    expect((await admin.get(`${path}/${pub.doc2}`)).body.data).toEqual({ priority: top + 9 })
    const order = await listIds(admin, path)
    expect(order[0]).toBe(pub.img1)
    expect(order.slice(-2)).toEqual([pub.doc, pub.doc2])
    expect(new Set(order)).toEqual(new Set([...before, pub.doc, pub.img1]))
    expectError(await admin.put(`${path}/${pub.img3 + 1000}`, { priority: 1 }), 404, 'CHILD_NOT_FOUND')
    expectError(await admin.put(`/objects/${pub.culture}/children/${pub.img2}`, { priority: 1 }), 404, 'CHILD_NOT_FOUND')
  })

  it('children: DELETE removes the tree row only; sections keep one parent and never go under their own descendants', async () => {
    expect((await admin.del(`/objects/${pub.music}/children/${pub.img1}`)).status).toBe(204)
    expect((await read(pub.img1)).id).toBe(pub.img1)
    expect(await listIds(admin, `/objects/${pub.music}/children`)).not.toContain(pub.img1)
    expect(await listIds(admin, `/objects/${pub.culture}/children`)).toContain(pub.img1)
    expectError(await admin.del(`/objects/${pub.music}/children/${pub.img1}`), 404, 'CHILD_NOT_FOUND')
    expectError(await admin.del(`/objects/${pub.culture}/children/${pub.music}`), 400, 'VALIDATION_FAILED')
    const other = await create(admin, { object_type: 'section', title: 'Other', parents: [1] })
    expectError(await admin.post(`/objects/${other}/children`, { child_id: pub.music }), 400, 'VALIDATION_FAILED')
    expectError(await admin.post(`/objects/${pub.music}/children`, { child_id: pub.culture }), 400, 'VALIDATION_FAILED')
    expectError(await admin.post(`/objects/${pub.music}/children`, { child_id: pub.music }), 400, 'VALIDATION_FAILED')
    expectError(await admin.post('/objects', { id: pub.culture, parents: [pub.music] }), 400, 'VALIDATION_FAILED')
    expectError(await admin.post(`/objects/${pub.doc}/children`, { child_id: pub.img1 }), 400, 'NOT_A_TREE_NODE')
    expect(await listIds(admin, `/objects/${other}/children`)).toEqual([])
    expect((await read(pub.music)).children.count).toBe((await listIds(admin, `/objects/${pub.music}/children`)).length)
    expect(await listIds(admin, `/objects/${pub.culture}/sections`)).toEqual([pub.music])
  })

  it('update answers 200 with the object as the single read shows it, by id or nickname', async () => {
    const res = await admin.post('/objects', { id: pub.doc2, title: 'Second, edited', custom_properties: { mood: 'calm' }, languages: { it: { title: 'Secondo' } } })
    expect(res.status).toBe(200)
    expect(res.headers.get('location')).toBeNull()
    const object = await read(pub.doc2)
    expect(res.body.data.object).toEqual(object)
    expect(object).toMatchObject({ title: 'Second, edited', nickname: 'second', custom_properties: { mood: 'calm' }, languages: { it: { title: 'Secondo' } } })
    const byNick = await admin.post('/objects', { id: 'second', object_type: 'document', description: 'by nickname' })
    expect(byNick.status).toBe(200)
    expect(byNick.body.data.object).toMatchObject({ id: pub.doc2, title: 'Second, edited', description: 'by nickname', custom_properties: { mood: 'calm' } })
    expectError(await admin.post('/objects', { id: pub.doc2, object_type: 'event' }), 400, 'VALIDATION_FAILED')
    expectError(await admin.post('/objects', { id: 987654, title: 'x' }), 404, 'OBJECT_NOT_FOUND')
    expect((await read(pub.doc2)).object_type).toBe('document')
  })

  it('DELETE an object: 204, then 404; its tree rows and relations in both directions are gone', async () => {
    const victim = await create(admin, { object_type: 'document', title: 'Victim', parents: [pub.culture, pub.music], relations: { attach: [{ related_id: pub.img2 }], seealso: [{ related_id: pub.doc }] } })
    expect((await read(pub.img2)).relations.attached_to.count).toBe(1)
    expect((await admin.del(`/objects/${victim}`)).status).toBe(204)
    expectError(await admin.get(`/objects/${victim}`), 404, 'OBJECT_NOT_FOUND')
    expectError(await admin.del(`/objects/${victim}`), 404, 'OBJECT_NOT_FOUND')
    expect(await listIds(admin, `/objects/${pub.culture}/children`)).not.toContain(victim)
    expect(await listIds(admin, `/objects/${pub.music}/children`)).not.toContain(victim)
    expect((await read(pub.img2)).relations).toEqual({})
    expect(await listIds(admin, `/objects/${pub.doc}/relations/seealso`)).toEqual([pub.doc2])
    expectError(await admin.del(`/objects/${pub.culture}`), 400, 'VALIDATION_FAILED')
    expectError(await admin.del('/objects/1'), 400, 'VALIDATION_FAILED')
    expect((await read(pub.culture)).id).toBe(pub.culture)
  })

  it('writes need a token: 401 on every write endpoint, before anything about the object', async () => {
    const anon = client(system.base, '')
    const writes: Array<[string, Promise<Reply>]> = [
      ['create', anon.post('/objects', { object_type: 'document', title: 'anon', parents: [1] })],
      ['update', anon.post('/objects', { id: pub.doc, title: 'anon' })],
      ['delete', anon.del(`/objects/${pub.doc}`)],
      ['delete missing', anon.del('/objects/987654')],
      ['relate', anon.post(`/objects/${pub.doc}/relations/attach`, { related_id: pub.img1 })],
      ['replace', anon.put(`/objects/${pub.doc}/relations/attach/${pub.img1}`, { priority: 1 })],
      ['unrelate', anon.del(`/objects/${pub.doc}/relations/attach/${pub.img1}`)],
      ['add child', anon.post(`/objects/${pub.music}/children`, { child_id: pub.img1 })],
      ['move child', anon.put(`/objects/${pub.music}/children/${pub.doc}`, { priority: 1 })],
      ['remove child', anon.del(`/objects/${pub.music}/children/${pub.doc}`)],
    ]
    for (const [name, reply] of writes) expect([name, (await reply).body.error?.code]).toEqual([name, 'AUTHENTICATION_REQUIRED'])
    expectError(await client(system.base, 'not.a.token').post('/objects', { id: pub.doc, title: 'x' }), 401, 'TOKEN_INVALID')
    expect((await read(pub.doc)).title).toBe('Hello')
  })

  it('403 for a user outside the writing groups and where the object\'s write groups exclude the user; administrator always writes', async () => {
    const member = client(system.base, await login(system.base, PEOPLE.member))
    const ed = client(system.base, await login(system.base, PEOPLE.ed))
    const desk = client(system.base, await login(system.base, PEOPLE.desk))
    expectError(await member.post('/objects', { object_type: 'document', title: 'nope', parents: [1] }), 403, 'PERMISSION_DENIED')
    expectError(await member.post('/objects', { id: pub.doc, title: 'nope' }), 403, 'PERMISSION_DENIED')
    expectError(await member.del(`/objects/${pub.doc}`), 403, 'PERMISSION_DENIED')
    expectError(await member.post(`/objects/${pub.doc}/relations/seealso`, { related_id: pub.img1 }), 403, 'PERMISSION_DENIED')
    expectError(await member.post(`/objects/${pub.music}/children`, { child_id: pub.img1 }), 403, 'PERMISSION_DENIED')
    expectError(await member.del(`/objects/${pub.music}/children/${pub.doc}`), 403, 'PERMISSION_DENIED')
    expectError(await ed.post('/objects', { id: refs.locked, title: 'ed was here' }), 403, 'PERMISSION_DENIED')
    expectError(await ed.post(`/objects/${refs.locked}/relations/seealso`, { related_id: pub.doc }), 403, 'PERMISSION_DENIED')
    expectError(await ed.del(`/objects/${refs.locked}`), 403, 'PERMISSION_DENIED')
    expect((await read(refs.locked)).title).toBe('Locked')
    expect((await read(pub.doc)).title).toBe('Hello')
    expect((await desk.post('/objects', { id: refs.locked, title: 'desk edit' })).status).toBe(200)
    expect((await admin.post('/objects', { id: refs.locked, title: 'admin edit' })).status).toBe(200)
    const edDoc = await create(ed, { object_type: 'document', title: 'By ed', parents: [pub.music] })
    expect((await ed.post('/objects', { id: edDoc, title: 'By ed, edited' })).status).toBe(200)
    expect((await read(refs.locked)).title).toBe('admin edit')
  })
})
