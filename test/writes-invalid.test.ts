import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { BASE_FIXTURES, PEOPLE, type BaseRefs, client, create, expectError, listIds, login, seed, type Client } from './support/writer.js'
import { must } from './support/must.js'

/** One system whose CONFIG_FILE narrows the writable types; every invalid body of issue 5. */
describe('invalid write bodies: status, error code, and nothing half-written', () => {
  let system: RunningSystem
  let admin: Client
  let refs: BaseRefs
  const ids = { section: 0, inner: 0, doc: 0, img: 0, event: 0 }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'content-invalid-'))
    const config = join(dir, 'config.yaml')
    writeFileSync(config, 'writableTypes: [document, section, event, image]\n')
    system = await startSystem({ CONFIG_FILE: config }, dir)
    refs = seed(system.dataDir, BASE_FIXTURES) as BaseRefs
    admin = client(system.base, await login(system.base))
    ids.section = await create(admin, { object_type: 'section', title: 'Base', parents: [1] })
    ids.inner = await create(admin, { object_type: 'section', title: 'Inner', parents: [ids.section] })
    ids.doc = await create(admin, { object_type: 'document', title: 'Doc', parents: [ids.section] })
    ids.img = await create(admin, { object_type: 'image', title: 'Img', parents: [ids.section] })
    ids.event = await create(admin, { object_type: 'event', title: 'Event', parents: [ids.section] })
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  /** Everything the invalid writes could touch, as the API shows it. */
  async function snapshot () {
    const all = await listIds(admin, '/objects')
    const objects = await Promise.all([1, ...all].map(async (id) => {
      const o = (await admin.get(`/objects/${id}`)).body.data.object
      return { ...o, modified: undefined }
    }))
    const relations = await Promise.all(all.map(async (id) => (await admin.get(`/objects/${id}/relations`)).body.data))
    return { all, objects, relations }
  }

  /** Runs writes that must all fail the same way (every mismatch reported at once), then checks nothing changed. */
  async function rejectsAll (status: number, code: string, cases: Array<[string, () => Promise<Reply>]>, field?: (name: string) => string | null) {
    const before = await snapshot()
    const seen: string[] = []
    for (const [name, send] of cases) {
      const reply = await send()
      const wanted = field?.(name)
      const fields = Object.keys(reply.body?.error?.details ?? {}).join(' ')
      const named = !wanted || fields.includes(wanted)
      seen.push(`${name} → ${reply.status} ${reply.body?.error?.code}${named ? '' : ` (details name ${fields || 'nothing'}, not ${wanted})`}`)
      if (reply.status === status) expectError(reply, status, code)
    }
    expect(seen).toEqual(cases.map(([name]) => `${name} → ${status} ${code}`))
    expect(await snapshot()).toEqual(before)
  }

  const createWith = (extra: Record<string, unknown>) => () => admin.post('/objects', { object_type: 'document', title: 'bad', parents: [ids.section], ...extra })
  const updateWith = (extra: Record<string, unknown>) => () => admin.post('/objects', { id: ids.doc, ...extra })

  const WRONG_TYPES: Record<string, unknown[]> = {
    title: [123, true, ['a'], { a: 1 }], description: [1], subject: [false], abstract: [[]], body: [{}], note: [2],
    nickname: [5, null, ['x']], lang: [7, null], rights: [1, null], license: [[]], creator: [{}], publisher: [true], comments: [0],
    valid: ['yes', 1, null], start_date: [123, true], end_date: [[]], publication_date: [{}],
    custom_properties: ['x', [], 3, { a: { b: 1 } }, { a: null }], languages: ['en', [], { en: 'x' }, { en: { title: 1 } }],
    geo_tags: [{}, 'x', [[]], [{ latitude: 'n', longitude: 1 }], [{ latitude: 100, longitude: 1 }], [{ latitude: 1 }]],
    tags: ['a', { a: 1 }, [1], [null], ['']], categories: ['culture-cat', [1], [{}]],
    date_items: [{}, 'x', [[]], [{ start_date: 5 }], [{ days: 'mon' }]],
    parents: ['1', ['1'], { 0: 1 }, 1, [null], [true], [[1]]],
    relations: [[], 'x', { attach: {} }, { attach: [1] }, { attach: [{ related_id: '1' }] }, { attach: [{}] }, { attach: [{ related_id: 1, params: [] }] }, { attach: [{ related_id: 1, bogus: 1 }] }],
    object_type: [5, null, ['document'], ''],
  }

  it('wrong JSON types in every field of a create: 400 VALIDATION_FAILED naming the field', async () => {
    const cases = Object.entries(WRONG_TYPES).flatMap(([field, values]) =>
      values.map((v): [string, () => Promise<Reply>] => [`${field}=${JSON.stringify(v)}`, createWith({ [field]: v })]))
    await rejectsAll(400, 'VALIDATION_FAILED', cases, (name) => must(name.split('=')[0]))
  })

  it('wrong JSON types in every field of an update, and bad ids to update', async () => {
    const fields = Object.entries(WRONG_TYPES).filter(([field]) => !['object_type', 'parents', 'relations'].includes(field))
    const cases = fields.flatMap(([field, values]) =>
      values.map((v): [string, () => Promise<Reply>] => [`${field}=${JSON.stringify(v)}`, updateWith({ [field]: v })]))
    for (const id of [true, 1.5, -1, 0, 2 ** 53, 1e300, [], {}, null, '']) cases.push([`id=${JSON.stringify(id)}`, () => admin.post('/objects', { id, title: 'x' })])
    await rejectsAll(400, 'VALIDATION_FAILED', cases, (name) => must(name.split('=')[0]))
  })

  it('arrays where objects belong and objects where arrays belong', async () => {
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ['data array', () => admin.post('/objects', [{ object_type: 'document', parents: [1] }])],
      ['data string', () => admin.post('/objects', 'document')],
      ['data null', () => admin.post('/objects', null)],
      ['relation data string', () => admin.post(`/objects/${ids.doc}/relations/attach`, 'x')],
      ['relation data number', () => admin.post(`/objects/${ids.doc}/relations/attach`, 5)],
      ['relation data empty', () => admin.post(`/objects/${ids.doc}/relations/attach`, [])],
      ['relation item array', () => admin.post(`/objects/${ids.doc}/relations/attach`, [[ids.img]])],
      ['relation params array', () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: ids.img, params: [1] })],
      ['relation params string', () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: ids.img, params: 'x' })],
      ['relation unknown key', () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: ids.img, colour: 1 })],
      ['relation PUT array', () => admin.put(`/objects/${ids.doc}/relations/attach/${ids.img}`, [{ priority: 1 }])],
      ['relation PUT empty', () => admin.put(`/objects/${ids.doc}/relations/attach/${ids.img}`, {})],
      ['relation PUT params array', () => admin.put(`/objects/${ids.doc}/relations/attach/${ids.img}`, { params: [] })],
      ['relation PUT priority string', () => admin.put(`/objects/${ids.doc}/relations/attach/${ids.img}`, { priority: '1' })],
      ['children data string', () => admin.post(`/objects/${ids.section}/children`, 'x')],
      ['children empty', () => admin.post(`/objects/${ids.section}/children`, [])],
      ['children item array', () => admin.post(`/objects/${ids.section}/children`, [[ids.doc]])],
      ['children id string', () => admin.post(`/objects/${ids.section}/children`, { child_id: String(ids.doc) })],
      ['children unknown key', () => admin.post(`/objects/${ids.section}/children`, { child_id: ids.doc, parent: 1 })],
      ['children twice', () => admin.post(`/objects/${ids.section}/children`, [{ child_id: ids.img }, { child_id: ids.img, priority: 4 }])],
      ['child PUT no priority', () => admin.put(`/objects/${ids.section}/children/${ids.doc}`, {})],
      ['child PUT array', () => admin.put(`/objects/${ids.section}/children/${ids.doc}`, [{ priority: 1 }])],
      ['child PUT string', () => admin.put(`/objects/${ids.section}/children/${ids.doc}`, { priority: 'first' })],
    ])
  })

  it('negative, zero, fractional and huge ids and priorities in bodies and paths', async () => {
    const huge = [-1, 0, 1.5, 2 ** 53, 2 ** 60, 1e308]
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ...huge.map((n): [string, () => Promise<Reply>] => [`parents ${n}`, createWith({ parents: [n] })]),
      ...huge.map((n): [string, () => Promise<Reply>] => [`related_id ${n}`, () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: n })]),
      ...huge.map((n): [string, () => Promise<Reply>] => [`create related_id ${n}`, createWith({ relations: { attach: [{ related_id: n }] } })]),
      ...huge.map((n): [string, () => Promise<Reply>] => [`child_id ${n}`, () => admin.post(`/objects/${ids.section}/children`, { child_id: n })]),
      ...[-1, 1.5, 2 ** 40, 1e308].flatMap((n): Array<[string, () => Promise<Reply>]> => [
        [`relation priority ${n}`, () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: ids.img, priority: n })],
        [`create relation priority ${n}`, createWith({ relations: { attach: [{ related_id: ids.img, priority: n }] } })],
        [`PUT relation priority ${n}`, () => admin.put(`/objects/${ids.doc}/relations/attach/${ids.img}`, { priority: n })],
        [`child priority ${n}`, () => admin.post(`/objects/${ids.section}/children`, { child_id: ids.doc, priority: n })],
        [`PUT child priority ${n}`, () => admin.put(`/objects/${ids.section}/children/${ids.doc}`, { priority: n })],
      ]),
    ])
    await rejectsAll(400, 'INVALID_OBJECT_ID', [
      ['path 0', () => admin.post('/objects/0/children', { child_id: ids.doc })],
      ['path huge', () => admin.del('/objects/99999999999999999999')],
      ['path 2^53', () => admin.post(`/objects/${2 ** 53}/relations/attach`, { related_id: ids.img })],
    ])
    await rejectsAll(400, 'INVALID_PARAMETER', [
      ['related 0', () => admin.del(`/objects/${ids.doc}/relations/attach/0`)],
      ['related -1', () => admin.put(`/objects/${ids.doc}/relations/attach/-1`, { priority: 1 })],
      ['child huge', () => admin.put(`/objects/${ids.section}/children/99999999999999999999`, { priority: 1 })],
      ['child 1.5', () => admin.del(`/objects/${ids.section}/children/1.5`)],
    ])
    await rejectsAll(404, 'OBJECT_NOT_FOUND', [
      ['path -1', () => admin.post('/objects/-1/children', { child_id: ids.doc })],
      ['path missing', () => admin.post('/objects/987654/relations/attach', { related_id: ids.img })],
    ])
  })

  it('unknown relation names, relations the types do not allow, self-relations', async () => {
    await rejectsAll(400, 'UNKNOWN_RELATION', [
      ['POST unknown', () => admin.post(`/objects/${ids.doc}/relations/likes`, { related_id: ids.img })],
      ['PUT unknown', () => admin.put(`/objects/${ids.doc}/relations/likes/${ids.img}`, { priority: 1 })],
      ['DELETE unknown', () => admin.del(`/objects/${ids.doc}/relations/likes/${ids.img}`)],
      ['create unknown', createWith({ relations: { likes: [{ related_id: ids.img }] } })],
      ['inverse name on a wrong type', () => admin.post(`/objects/${ids.doc}/relations/poster_of`, { related_id: ids.img })],
    ])
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ['attach a document', () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: ids.event })],
      ['poster a section', createWith({ relations: { poster: [{ related_id: ids.section }] } })],
      ['self seealso', () => admin.post(`/objects/${ids.doc}/relations/seealso`, { related_id: ids.doc })],
      ['self seealso in a list', () => admin.post(`/objects/${ids.doc}/relations/seealso`, [{ related_id: ids.event }, { related_id: ids.doc }])],
      ['self on update', updateWith({ relations: { seealso: [{ related_id: ids.doc }] } })],
    ], (name) => name.startsWith('self') || name.startsWith('attach') ? 'relations' : null)
  })

  it('cycles in the tree: an object under itself or its own descendant', async () => {
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ['section under its child', () => admin.post(`/objects/${ids.inner}/children`, { child_id: ids.section })],
      ['section under itself', () => admin.post(`/objects/${ids.section}/children`, { child_id: ids.section })],
      ['update parents to a descendant', updateWith({ id: ids.section, parents: [ids.inner] })],
      ['update parents to itself', updateWith({ id: ids.inner, parents: [ids.inner] })],
      ['publication under a section', () => admin.post(`/objects/${ids.section}/children`, { child_id: 1 })],
    ])
  })

  it('server-owned fields are a 400 naming them', async () => {
    const owned = ['created', 'modified', 'user_created', 'user_modified', 'object_type_id', 'status', 'permissions', 'authorized', 'free_access', 'children']
    const values: Record<string, unknown> = { created: '2020-01-01T00:00:00Z', status: 'on', permissions: { read: [] }, authorized: true, free_access: true, children: { count: 0 } }
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ...owned.map((f): [string, () => Promise<Reply>] => [f, createWith({ [f]: values[f] ?? 1 })]),
      ...owned.map((f): [string, () => Promise<Reply>] => [f, updateWith({ [f]: values[f] ?? 1 })]),
    ], (name) => name)
    const both = await admin.post('/objects', { id: ids.doc, created: 1, status: 'off' })
    expect(Object.keys(expectError(both, 400, 'VALIDATION_FAILED')).sort()).toEqual(['created', 'status'])
  })

  it('type problems and missing links: unknown type, types not writable, neither parents nor relations', async () => {
    await rejectsAll(400, 'UNKNOWN_OBJECT_TYPE', [['widget', createWith({ object_type: 'widget' })], ['Document', createWith({ object_type: 'Document' })]])
    await rejectsAll(400, 'TYPE_NOT_WRITABLE', [['gallery', createWith({ object_type: 'gallery' })], ['area', createWith({ object_type: 'area' })], ['card', createWith({ object_type: 'card' })]])
    await rejectsAll(400, 'TYPE_NOT_WRITABLE', [
      ['update a gallery', () => admin.post('/objects', { id: refs.gallery, title: 'renamed' })],
      ['update a gallery by nickname', () => admin.post('/objects', { id: 'gallery', object_type: 'gallery', title: 'renamed' })],
      ['update the publication', () => admin.post('/objects', { id: 1, title: 'renamed' })],
    ])
    const gallery = await admin.post('/objects', { object_type: 'gallery', title: 'G', parents: [ids.section] })
    expect(gallery.body.error.message).toContain('gallery is not writable')
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ['no links', () => admin.post('/objects', { object_type: 'document', title: 'orphan' })],
      ['empty parents', () => admin.post('/objects', { object_type: 'document', title: 'orphan', parents: [] })],
      ['empty relations', () => admin.post('/objects', { object_type: 'document', title: 'orphan', relations: {} })],
      ['no type', () => admin.post('/objects', { title: 'typeless', parents: [ids.section] })],
      ['section with two parents', () => admin.post('/objects', { object_type: 'section', title: 's', parents: [ids.section, 1] })],
      ['unknown field', createWith({ colour: 'blue' })],
    ], (name) => ({ 'no links': 'parents', 'no type': 'object_type', 'unknown field': 'colour' } as Record<string, string>)[name] ?? null)
  })

  it('unreachable parents and related objects are a 400 naming them', async () => {
    // an editor outside the read group: administrators read every object, protected ones included
    const ed = client(system.base, await login(system.base, PEOPLE.ed))
    const asEd = (data: Record<string, unknown>) => () => ed.post('/objects', { object_type: 'document', title: 'bad', parents: [ids.section], ...data })
    const cases: Array<[string, number, () => Promise<Reply>]> = [
      ['missing parent', 987654, createWith({ parents: [987654] })],
      ['protected parent', refs.vault, asEd({ parents: [refs.vault] })],
      ['document as parent', ids.doc, createWith({ parents: [ids.doc] })],
      ['off-tree parent', refs.stray, createWith({ parents: [refs.stray] })],
      ['missing related', 987654, createWith({ parents: undefined, relations: { seealso: [{ related_id: 987654 }] } })],
      ['protected related', refs.secret, asEd({ relations: { seealso: [{ related_id: refs.secret }] } })],
      ['off-tree related', refs.stray, () => admin.post(`/objects/${ids.doc}/relations/attach`, { related_id: refs.stray })],
      ['missing related POST', 987654, () => admin.post(`/objects/${ids.doc}/relations/seealso`, { related_id: 987654 })],
      ['missing child', 987654, () => admin.post(`/objects/${ids.section}/children`, { child_id: 987654 })],
      ['protected child', refs.secret, () => ed.post(`/objects/${ids.section}/children`, { child_id: refs.secret })],
      ['missing parent on update', 987654, updateWith({ parents: [987654] })],
    ]
    const before = await snapshot()
    const seen: string[] = []
    for (const [name, id, send] of cases) {
      const reply = await send()
      const named = new RegExp(`\\b${id}\\b`).test(JSON.stringify(reply.body?.error?.details ?? null))
      seen.push(`${name} → ${reply.status} ${reply.body?.error?.code} ${named ? 'named' : JSON.stringify(reply.body?.error?.details)}`)
    }
    expect(seen).toEqual(cases.map(([name]) => `${name} → 400 VALIDATION_FAILED named`))
    expect(await snapshot()).toEqual(before)
  })

  it('input in any script, quoted back in an error, reaches the client whole and never stops a service', async () => {
    const category = 'catégorie-日本-😀'
    const unknown = await admin.post('/objects', { object_type: 'document', title: 'Doc', parents: [ids.section], categories: [category] })
    expect(JSON.stringify(expectError(unknown, 400, 'VALIDATION_FAILED'))).toContain(category)
    expectError(await admin.post('/objects', { object_type: 'documént', title: 'Doc', parents: [ids.section] }), 400, 'UNKNOWN_OBJECT_TYPE')
    for (const nickname of ['café', 'ünïcödé-日本', '😀']) {
      const path = `/objects/${encodeURIComponent(nickname)}`
      expectError(await admin.get(path), 404, 'OBJECT_NOT_FOUND')
      expectError(await admin.get(`${path}/children`), 404, 'OBJECT_NOT_FOUND')
      expect((await fetch(`${system.base}${path}/children`)).status).toBe(404) // anonymous, the same
    }
    // no service stopped on the way (the launcher restarts a crashed one and says so)
    expect(system.output()).not.toMatch(/restarting in/)
    expect((await fetch(`${system.base}/readyz`)).status).toBe(200)
  })

  it('bad dates, bad days, date items on a type without dates, unknown categories', async () => {
    const dates = ['2026-01-01T10:00:00', '2026-02-30T10:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01', 'yesterday', '2026-01-01T10:00:00+2500', '']
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ...dates.map((d): [string, () => Promise<Reply>] => [`start_date ${d}`, createWith({ start_date: d })]),
      ...dates.map((d): [string, () => Promise<Reply>] => [`publication_date ${d}`, updateWith({ publication_date: d })]),
      ...dates.map((d): [string, () => Promise<Reply>] => [`date_items ${d}`, () => admin.post('/objects', { id: ids.event, date_items: [{ start_date: d }] })]),
      ...[[7], [-1], ['mon'], [1.5], 3, [null]].map((days): [string, () => Promise<Reply>] => [`date_items days ${JSON.stringify(days)}`, () => admin.post('/objects', { id: ids.event, date_items: [{ start_date: '2026-01-01T00:00:00Z', days }] })]),
      ['date_items on a document', createWith({ date_items: [{ start_date: '2026-01-01T00:00:00Z' }] })],
      ['date_items on a document update', updateWith({ date_items: [{ start_date: '2026-01-01T00:00:00Z' }] })],
      ['unknown category', createWith({ categories: ['culture-cat', 'no-such-category'] })],
      ['unknown category update', updateWith({ categories: ['no-such-category'] })],
    ], (name) => must(name.split(' ')[0]).replace('unknown', 'categories'))
    const unknown = await admin.post('/objects', { id: ids.doc, categories: ['nope-cat'] })
    expect(JSON.stringify(unknown.body.error.details)).toContain('nope-cat')
  })

  it('precedence: a missing object (404) or a caller who may not write (403) wins over an invalid body (400)', async () => {
    const member = client(system.base, await login(system.base, PEOPLE.member))
    const seen = async (reply: Promise<Reply>) => { const r = await reply; return `${r.status} ${r.body?.error?.code}` }
    expect({
      update: await seen(admin.post('/objects', { id: 987654, title: 5 })),
      updateNick: await seen(admin.post('/objects', { id: 'no-such-nick', start_date: 'yesterday' })),
      relate: await seen(admin.post('/objects/987654/relations/attach', { related_id: 'x' })),
      replace: await seen(admin.put('/objects/987654/relations/attach/5', { priority: -1 })),
      child: await seen(admin.post('/objects/987654/children', { child_id: -1 })),
      move: await seen(admin.put('/objects/987654/children/5', { priority: 'x' })),
      memberCreate: await seen(member.post('/objects', { object_type: 'widget', title: 5 })),
      memberUpdate: await seen(member.post('/objects', { id: ids.doc, title: 5 })),
      memberRelate: await seen(member.post(`/objects/${ids.doc}/relations/attach`, { related_id: 'x' })),
      memberChild: await seen(member.post(`/objects/${ids.section}/children`, [])),
    }).toEqual({
      update: '404 OBJECT_NOT_FOUND', updateNick: '404 OBJECT_NOT_FOUND', relate: '404 OBJECT_NOT_FOUND', replace: '404 OBJECT_NOT_FOUND',
      child: '404 OBJECT_NOT_FOUND', move: '404 OBJECT_NOT_FOUND', memberCreate: '403 PERMISSION_DENIED', memberUpdate: '403 PERMISSION_DENIED',
      memberRelate: '403 PERMISSION_DENIED', memberChild: '403 PERMISSION_DENIED',
    })
  })

  it('fields named as what every object has (constructor, toString): a 400 naming them; as languages, translated fields and custom properties, kept and read back', async () => {
    await rejectsAll(400, 'VALIDATION_FAILED', [
      ['constructor', createWith({ constructor: 'a' })],
      ['toString', updateWith({ toString: 'b' })],
    ], (name) => name)
    const languages = { constructor: { title: 'Costruttore', toString: 'x' }, hasOwnProperty: { title: 'y' } }
    const custom_properties = { constructor: 'c', valueOf: 'v' }
    const id = await create(admin, { object_type: 'document', title: 'Named', parents: [ids.section], languages, custom_properties })
    for (let i = 0; i < 2; i++) {
      const read = await admin.get(`/objects/${id}`)
      expect(read.status, JSON.stringify(read.body)).toBe(200)
      expect(read.body.data.object.languages).toEqual(languages)
      expect(read.body.data.object.custom_properties).toEqual(custom_properties)
    }
    const listed = await admin.get(`/objects/${ids.section}/children?filter[custom_properties.constructor]=c`)
    expect(listed.body.data.objects.map((o: { id: number }) => o.id)).toEqual([id])
  })

  it('content types: text/plain JSON is accepted, others 415, malformed 400, over 1 MiB 413', async () => {
    const body = JSON.stringify({ data: { object_type: 'document', title: 'Plain text body', parents: [ids.section] } })
    const plain = await admin.raw('POST', '/objects', body, 'text/plain; charset=utf-8')
    expect(plain.status, JSON.stringify(plain.body)).toBe(201)
    expect(plain.body.data.object.title).toBe('Plain text body')
    const huge = JSON.stringify({ data: { id: ids.doc, body: 'x'.repeat(1_100_000) } })
    await rejectsAll(415, 'UNSUPPORTED_MEDIA_TYPE', [
      ['xml', () => admin.raw('POST', '/objects', body, 'application/xml')],
      ['form', () => admin.raw('POST', '/objects', 'data=1', 'application/x-www-form-urlencoded')],
      ['html children', () => admin.raw('POST', `/objects/${ids.section}/children`, JSON.stringify({ data: { child_id: ids.img } }), 'text/html')],
      ['octet PUT', () => admin.raw('PUT', `/objects/${ids.doc}/relations/attach/${ids.img}`, '{}', 'application/octet-stream')],
    ])
    await rejectsAll(400, 'MALFORMED_JSON', [
      ['truncated', () => admin.raw('POST', '/objects', '{"data": {', 'application/json')],
      ['plain not json', () => admin.raw('POST', '/objects', 'hello', 'text/plain')],
      // keys that reach a prototype, wherever they are (refused as fastify refuses them)
      ['__proto__ field', () => admin.raw('POST', '/objects', `{"data":{"id":${ids.doc},"__proto__":{"status":"off"}}}`, 'application/json')],
      ['__proto__ relation, escaped', () => admin.raw('POST', '/objects', `{"data":{"id":${ids.doc},"relations":{"\\u005f_proto__":[{"related_id":${ids.img}}]}}}`, 'application/json')],
      ['__proto__ language', () => admin.raw('POST', '/objects', `{"data":{"id":${ids.doc},"languages":{"__proto__":{"title":"x"}}}}`, 'application/json')],
      ['constructor.prototype', () => admin.raw('POST', `/objects/${ids.section}/children`, `{"data":{"child_id":${ids.img},"constructor":{"prototype":{"a":1}}}}`, 'application/json')],
    ])
    await rejectsAll(400, 'MISSING_PARAMETER', [
      ['no data', () => admin.raw('POST', '/objects', '{"object_type":"document"}', 'application/json')],
      ['array body', () => admin.raw('POST', `/objects/${ids.section}/children`, '[]', 'application/json')],
    ])
    await rejectsAll(413, 'PAYLOAD_TOO_LARGE', [
      ['create', () => admin.raw('POST', '/objects', huge, 'application/json')],
      ['relations', () => admin.raw('POST', `/objects/${ids.doc}/relations/attach`, huge, 'application/json')],
      ['plain', () => admin.raw('POST', '/objects', huge, 'text/plain')],
    ])
  })
})
