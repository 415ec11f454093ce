import { beforeAll, describe, expect, it } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest({ routing: { bodyLimit: 2048, writableTypes: ['document', 'section'] } })
let auth: Record<string, string>
beforeAll(async () => {
  auth = { authorization: `Bearer ${await signToken({ id: 7, groups: ['editor'], backend_auth: true })}` }
})

type Method = 'POST' | 'PUT' | 'DELETE'
const send = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  gw.app.inject({ method, url, headers: { ...auth, ...headers }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...auth, ...headers } }) })
const lastCall = (method: string) => gw.backends.calls.filter((c) => c.method === method).at(-1)?.request as Record<string, unknown>

describe('POST /objects', () => {
  it('when creating, then 201 + Location and data.object; the body travels as sent, with the writable types', async () => {
    const res = await send('POST', '/objects', { data: { object_type: 'document', title: 'New', parents: [1] } })
    expect(res.statusCode).toBe(201)
    expect(res.headers.location).toBe(`http://localhost:80/objects/${res.json().data.object.id}`)
    expect(res.json()).toMatchObject({ api: 'objects', method: 'post', data: { object: { object_type: 'document', title: 'New' } } })
    const call = lastCall('objects.SaveObject')
    expect(call.body_json).toBe('{"data":{"object_type":"document","title":"New","parents":[1]}}')
    expect(call.writable_types).toEqual(['document', 'section'])
    expect(call.caller).toEqual({ user_id: 7, groups: ['editor'], may_write: true })
  })

  it('when the body has spacing, other members and unusual key order, then the objects service gets those very bytes', async () => {
    const payload = '{ "note": "kept",\n  "data": {"title": "x", "id": 3} }'
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json' }, payload })
    expect(res.statusCode).toBe(200)
    expect(lastCall('objects.SaveObject').body_json).toBe(payload)
  })

  it('when updating, then 200 without Location', async () => {
    const res = await send('POST', '/objects', { data: { id: 3, title: 'x' } })
    expect(res.statusCode).toBe(200)
    expect(res.headers.location).toBeUndefined()
    expect(res.json().data.object.id).toBe(3)
  })

  it('when the type is not writable, then the backend 400 comes through', async () => {
    const res = await send('POST', '/objects', { data: { object_type: 'image', parents: [1] } })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ code: 'TYPE_NOT_WRITABLE', message: 'image is not writable' })
  })

  it('when text/plain holds JSON, then it is accepted', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'text/plain' }, payload: JSON.stringify({ data: { id: 3 } }) })
    expect(res.statusCode).toBe(200)
  })

  const big = JSON.stringify({ data: { title: 'x'.repeat(4096) } })
  it.each([
    { name: 'no token', token: false, payload: '{"data":{"id":3}}', type: 'application/json', status: 401, code: 'AUTHENTICATION_REQUIRED' },
    { name: 'malformed JSON', token: true, payload: '{"data": ', type: 'application/json', status: 400, code: 'MALFORMED_JSON' },
    { name: 'an unpaired surrogate escaped in a string', token: true, payload: '{"data":{"title":"a\\ud800"}}', type: 'application/json', status: 400, code: 'MALFORMED_JSON' },
    { name: 'another content type', token: true, payload: '<data/>', type: 'application/xml', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'form encoding', token: true, payload: 'data=1', type: 'application/x-www-form-urlencoded', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'too large', token: true, payload: big, type: 'application/json', status: 413, code: 'PAYLOAD_TOO_LARGE' },
  ])('when $name, then $status $code and no backend call', async ({ token, payload, type, status, code }) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...(token ? auth : {}), 'content-type': type }, payload })
    expect(res.statusCode).toBe(status)
    expect(res.json()).toEqual({ error: { status, code, message: expect.any(String), details: res.json().error.details, more_info: `http://localhost:80/docs/errors#${code}`, url: 'http://localhost:80/objects' } })
    expect(Object.keys(res.json().error).sort()).toEqual(['code', 'details', 'message', 'more_info', 'status', 'url'])
    expect(gw.backends.calls.filter((c) => c.method === 'objects.SaveObject')).toHaveLength(0)
  })

  it.each([
    ['latin-1 text', Buffer.from('{"data":{"id":3,"title":"caf\xe9"}}', 'latin1')],
    ['a truncated sequence', Buffer.concat([Buffer.from('{"data":{"id":3,"title":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}}')])],
    ['an encoded surrogate', Buffer.concat([Buffer.from('{"data":{"id":3,"title":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')])],
  ])('when the body is not UTF-8 (%s), then 400 MALFORMED_JSON and no backend call', async (_label, payload) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json' }, payload })
    expect(res.json().error).toMatchObject({ status: 400, code: 'MALFORMED_JSON', message: 'the request body is not UTF-8 text' })
    expect(gw.backends.calls.filter((c) => c.method === 'objects.SaveObject')).toHaveLength(0)
  })

  it('when a text of the body holds U+0000, then 400 VALIDATION_FAILED naming it, as on every store, and no backend call', async () => {
    const res = await send('POST', '/objects', { data: { object_type: 'document', parents: [1], custom_properties: { note: 'a\u0000b' } } })
    expect(res.json().error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: { text: 'must not contain U+0000' } })
    expect(gw.backends.calls.filter((c) => c.method === 'objects.SaveObject')).toHaveLength(0)
  })

  it('when the body is UTF-8 with a byte order mark, then the objects service gets its text without the mark', async () => {
    const text = '{"data":{"id":3,"title":"café 😀"}}'
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json' }, payload: Buffer.from(`\uFEFF${text}`) })
    expect(res.statusCode).toBe(200)
    expect(lastCall('objects.SaveObject').body_json).toBe(text)
  })

  it.each([
    ['gzip', 'application/json', 'gzip'],
    ['two codings, any case', 'text/plain', 'identity, DEFLATE , br'],
  ])('when the body has a Content-Encoding (%s), then 415 naming the codings with Accept-Encoding: identity, the body unparsed and no backend call', async (_label, type, coding) => {
    // what the body says is never read: it could be coded bytes; here it is JSON that would be written
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': type, 'content-encoding': coding }, payload: '{"data":{"object_type":"document","parents":[1]}}' })
    expect(res.statusCode).toBe(415)
    expect(res.headers['accept-encoding']).toBe('identity')
    expect(res.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining(JSON.stringify(coding.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== 'identity').join(', '))) })
    expect(gw.backends.calls.filter((c) => c.method === 'objects.SaveObject')).toHaveLength(0)
  })

  it.each(['identity', ''])('when Content-Encoding is %j, then the body is read as sent', async (coding) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': coding }, payload: '{"data":{"id":3}}' })
    expect(res.statusCode).toBe(200)
  })

  it('when the Content-Encoding is long, then the 415 shows its start only', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'x'.repeat(5000) }, payload: '{}' })
    expect(res.statusCode).toBe(415)
    expect(res.json().error.message.length).toBeLessThan(200)
  })

  it.each([
    // Latin-1 bytes that happen to be UTF-8 too: read as UTF-8 they would be stored as "é", not as sent
    ['Latin-1 bytes that are valid UTF-8', 'application/json; charset=iso-8859-1', Buffer.from('{"data":{"id":3,"title":"caf\u00c3\u00a9"}}', 'latin1'), 'iso-8859-1'],
    ['UTF-16, which is not malformed but unread', 'application/json; charset="UTF-16LE"', Buffer.from('{"data":{"id":3}}', 'utf16le'), 'UTF-16LE'],
    ['legacy text/plain', 'text/plain ; Charset=windows-1252', Buffer.from('{"data":{"id":3}}'), 'windows-1252'],
  ])('when the body declares another charset (%s), then 415 naming it and no backend call', async (_label, type, payload, charset) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': type }, payload })
    expect(res.statusCode).toBe(415)
    expect(res.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining(JSON.stringify(charset)) })
    expect(gw.backends.calls.filter((c) => c.method === 'objects.SaveObject')).toHaveLength(0)
  })

  it('when the body declares another charset, then its 415 comes where decisions §2 puts it: after an invalid token, before a missing one', async () => {
    const headers = { 'content-type': 'application/json; charset=latin1' }
    const invalid = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...headers, authorization: 'Bearer x.y.z' }, payload: '{"data":{"id":3}}' })
    expect(invalid.json().error).toMatchObject({ status: 401, code: 'TOKEN_INVALID' })
    const missing = await gw.app.inject({ method: 'POST', url: '/objects', headers, payload: '{"data":{"id":3}}' })
    expect(missing.json().error).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' })
  })

  it.each([
    'application/json; charset=utf-8',
    'application/json; charset="UTF-8"',
    'application/json;charset=utf8',
    'text/plain; charset=US-ASCII',
    // parameters that do not parse declare no charset: the type alone says JSON
    'application/json; charset',
    'application/json;;',
  ])('when Content-Type is %j, then the body is read as UTF-8', async (type) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': type }, payload: Buffer.from('{"data":{"id":3,"title":"café"}}') })
    expect(res.statusCode).toBe(200)
    expect(lastCall('objects.SaveObject').body_json).toBe('{"data":{"id":3,"title":"café"}}')
  })

  it('when the charset is long, then the 415 shows its start only', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': `application/json; charset=${'x'.repeat(5000)}` }, payload: '{}' })
    expect(res.statusCode).toBe(415)
    expect(res.json().error.message.length).toBeLessThan(200)
  })

  it.each([
    ['no data member', '{"object_type":"document"}'],
    ['an empty body', ''],
  ])('when %s, then the objects service gets the body as sent and answers 400 MISSING_PARAMETER', async (_label, payload) => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { ...auth, 'content-type': 'application/json' }, payload })
    expect(res.json().error).toMatchObject({ status: 400, code: 'MISSING_PARAMETER', details: { parameter: 'data' } })
    if (payload === '') expect(lastCall('objects.SaveObject')).not.toHaveProperty('body_json')
    else expect(lastCall('objects.SaveObject').body_json).toBe(payload)
  })

  it('when data is not an object, then it still goes to the objects service, which checks the caller before the body', async () => {
    const res = await send('POST', '/objects', { data: [1] })
    expect(res.json().error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: { data: 'must be a JSON object' } })
    expect(lastCall('objects.SaveObject').body_json).toBe('{"data":[1]}')
  })

  it('when the token is invalid, then 401 TOKEN_INVALID comes before the missing-body 400', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/objects', headers: { authorization: 'Bearer junk' } })
    expect(res.json().error.code).toBe('TOKEN_INVALID')
  })
})

describe('DELETE /objects/{id}', () => {
  it('204 without body, then 404 on repeat', async () => {
    const created = (await send('POST', '/objects', { data: { object_type: 'document', parents: [1] } })).json().data.object.id
    const res = await send('DELETE', `/objects/${created}`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expect((await send('DELETE', `/objects/${created}`)).json().error.code).toBe('OBJECT_NOT_FOUND')
  })

  it('needs a token', async () => {
    expect((await gw.app.inject({ method: 'DELETE', url: '/objects/3' })).json().error.code).toBe('AUTHENTICATION_REQUIRED')
  })
})

describe('relations writes', () => {
  it('POST one new item → 201 + Location of the collection, data = saved array', async () => {
    const res = await send('POST', '/objects/3/relations/seealso', { data: { related_id: 5, params: { note: 'n' } } })
    expect(res.statusCode).toBe(201)
    expect(res.headers.location).toBe('http://localhost:80/objects/3/relations/seealso')
    expect(res.json().data).toEqual([{ related_id: 5, priority: 2, params: { note: 'n' } }])
    expect(lastCall('objects.SaveRelations')).toMatchObject({ object_id: '3', name: 'seealso', body_json: '{"data":{"related_id":5,"params":{"note":"n"}}}' })
  })

  it('POST only existing items → 200', async () => {
    const res = await send('POST', '/objects/3/relations/attach', { data: [{ related_id: 4, priority: 1 }] })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual([{ related_id: 4, priority: 1, params: null }])
  })

  it('POST malformed items → one call carrying the body as sent; the objects service names the fields (400 VALIDATION_FAILED)', async () => {
    const res = await send('POST', '/objects/3/relations/attach', { data: [{ related_id: 'x' }] })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_FAILED', details: { 'data[0].related_id': expect.any(String) } })
    expect(gw.backends.calls.map((c) => [c.method, (c.request as { body_json?: string }).body_json])).toEqual([['objects.SaveRelations', '{"data":[{"related_id":"x"}]}']])
  })

  it.each([
    ['POST relations on a missing object', 'POST', '/objects/999/relations/attach', { related_id: 'x' }, 404, 'OBJECT_NOT_FOUND'],
    ['PUT a relation of a missing object', 'PUT', '/objects/999/relations/attach/4', { priority: -1 }, 404, 'OBJECT_NOT_FOUND'],
    ['POST children of a missing object', 'POST', '/objects/999/children', [], 404, 'OBJECT_NOT_FOUND'],
    ['PUT a child of a missing object', 'PUT', '/objects/999/children/3', { priority: 'x' }, 404, 'OBJECT_NOT_FOUND'],
    ['POST relations on an object the caller may not touch', 'POST', '/objects/6/relations/attach', { related_id: 0 }, 403, 'PERMISSION_DENIED'],
    ['POST relations with a bad body and a good object', 'POST', '/objects/3/relations/attach', [], 400, 'VALIDATION_FAILED'],
    ['PUT a child with a bad body and a good object', 'PUT', '/objects/1/children/3', { priority: -1 }, 400, 'VALIDATION_FAILED'],
  ] as const)('when %s with a bad body, then the object-level answer comes first: %i %s', async (_label, method, url, data, status, code) => {
    const res = await send(method, url, { data })
    expect(res.json().error).toMatchObject({ status, code })
  })

  it('PUT → 200 {priority, params}; at least one is needed', async () => {
    const res = await send('PUT', '/objects/3/relations/attach/4', { data: { priority: 3 } })
    expect(res.json().data).toEqual({ priority: 3, params: null })
    expect(lastCall('objects.ReplaceRelation')).toMatchObject({ related_id: 4, body_json: '{"data":{"priority":3}}' })
    expect((await send('PUT', '/objects/3/relations/attach/4', { data: {} })).statusCode).toBe(400)
  })

  it('DELETE → 204; absent → 404 RELATION_NOT_FOUND', async () => {
    expect((await send('DELETE', '/objects/3/relations/attach/4')).statusCode).toBe(204)
    expect((await send('DELETE', '/objects/3/relations/attach/9')).json().error.code).toBe('RELATION_NOT_FOUND')
  })
})

describe('children writes', () => {
  it('POST new child → 201 + Location; existing only → 200', async () => {
    const created = await send('POST', '/objects/1/children', { data: { child_id: 5 } })
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe('http://localhost:80/objects/1/children')
    expect(created.json().data).toEqual([{ child_id: 5, priority: 5 }])
    const same = await send('POST', '/objects/1/children', { data: [{ child_id: 3, priority: 1 }] })
    expect(same.statusCode).toBe(200)
    expect(same.json().data).toEqual([{ child_id: 3, priority: 1 }])
  })

  it('PUT → 200 {priority}; missing priority → 400', async () => {
    expect((await send('PUT', '/objects/1/children/3', { data: { priority: 9 } })).json().data).toEqual({ priority: 9 })
    expect((await send('PUT', '/objects/1/children/3', { data: {} })).json().error.code).toBe('VALIDATION_FAILED')
  })

  it('DELETE → 204; not a child → 404', async () => {
    expect((await send('DELETE', '/objects/1/children/3')).statusCode).toBe(204)
    expect((await send('DELETE', '/objects/1/children/4')).json().error.code).toBe('CHILD_NOT_FOUND')
  })

  it('needs a token before anything about the body', async () => {
    const res = await gw.app.inject({ method: 'PUT', url: '/objects/1/children/3', headers: { 'content-type': 'application/json' }, payload: '{}' })
    expect(res.json().error.code).toBe('AUTHENTICATION_REQUIRED')
  })
})

describe('backends not implemented', () => {
  it('when SaveObject is UNIMPLEMENTED, then 501 NOT_IMPLEMENTED', async () => {
    const original = gw.backends.objects.SaveObject
    const { DomainError } = await import('@content/platform')
    gw.backends.objects.SaveObject = async () => { throw new DomainError('NOT_IMPLEMENTED', 'writes not implemented yet') }
    try {
      const res = await send('POST', '/objects', { data: { id: 3 } })
      expect(res.statusCode).toBe(501)
      expect(res.json().error.code).toBe('NOT_IMPLEMENTED')
    } finally {
      gw.backends.objects.SaveObject = original
    }
  })
})
