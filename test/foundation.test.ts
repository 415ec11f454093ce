import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { ERROR_KEYS } from './support/answers.js'

function expectError (reply: Pick<Reply, 'status' | 'body'>, status: number, code: string) {
  expect(reply.status).toBe(status)
  expect(Object.keys(reply.body)).toEqual(['error'])
  expect(Object.keys(reply.body.error).sort()).toEqual(ERROR_KEYS)
  expect(reply.body.error).toMatchObject({ status, code, more_info: `${new URL(reply.body.error.url).origin}/docs/errors#${code}` })
  expect(typeof reply.body.error.message).toBe('string')
}

describe('the system started as npm start starts it', () => {
  let system: RunningSystem

  beforeAll(async () => { system = await startSystem() })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('GET / lists the default endpoints and the API description with absolute URLs, keys sorted', async () => {
    const res = await http(system.base, 'GET', '/')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ api: '', method: 'get', params: [], url: `${system.base}/` })
    expect(Object.keys(res.body.data)).toEqual(['auth', 'changes', 'docs', 'files', 'me', 'objects', 'openapi.json', 'poster', 'trash'])
    expect(res.body.data.objects).toBe(`${system.base}/objects`)
    expect(res.body.data['openapi.json']).toBe(`${system.base}/openapi.json`)
  })

  it('GET /objects/1 answers the bootstrapped publication in the envelope', async () => {
    const res = await http(system.base, 'GET', '/objects/1')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ api: 'objects', method: 'get', params: [], url: `${system.base}/objects/1` })
    const object = res.body.data.object
    expect(object).toMatchObject({ id: 1, object_type: 'area', object_type_id: 1, nickname: 'publication', authorized: true, free_access: true })
    expect(object.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/)
    expect(object.children).toMatchObject({ count: 0, url: `${system.base}/objects/1/children` })
  })

  it('GET /objects/publication answers the same object by nickname', async () => {
    const res = await http(system.base, 'GET', '/objects/publication')
    expect(res.status).toBe(200)
    expect(res.body.data.object.id).toBe(1)
  })

  it('unknown objects and malformed ids answer 404 and 400 with the error body', async () => {
    expectError(await http(system.base, 'GET', '/objects/987654'), 404, 'OBJECT_NOT_FOUND')
    expectError(await http(system.base, 'GET', '/objects/no-such-nickname'), 404, 'OBJECT_NOT_FOUND')
    expectError(await http(system.base, 'GET', '/objects/0'), 400, 'INVALID_OBJECT_ID')
    expectError(await http(system.base, 'GET', '/objects/99999999999999999999'), 400, 'INVALID_OBJECT_ID')
  })

  it('routing errors: unknown endpoint 404, unsupported method 405 with Allow, unknown filter and surplus segments 400', async () => {
    expectError(await http(system.base, 'GET', '/nothing-here'), 404, 'ENDPOINT_NOT_FOUND')
    const patch = await http(system.base, 'PATCH', '/objects/1', { body: { data: {} } })
    expectError(patch, 405, 'METHOD_NOT_ALLOWED')
    expect(patch.headers.get('allow')).toBeTruthy()
    const put = await http(system.base, 'PUT', '/auth')
    expectError(put, 405, 'METHOD_NOT_ALLOWED')
    expectError(await http(system.base, 'GET', '/objects/1/grandchildren'), 400, 'UNKNOWN_PATH_FILTER')
    expectError(await http(system.base, 'GET', '/objects/1/ancestors'), 405, 'METHOD_NOT_ALLOWED')
    expectError(await http(system.base, 'GET', '/objects/1/children/2/3'), 400, 'SURPLUS_PATH_SEGMENTS')
    expectError(await http(system.base, 'GET', '/objects?page_size=101'), 400, 'PAGE_SIZE_TOO_LARGE')
    expectError(await http(system.base, 'GET', '/objects?colour=blue'), 400, 'UNKNOWN_QUERY_PARAMETER')
  })

  it('bad bodies: malformed JSON 400, other content types 415, oversized 413, never a 5xx', async () => {
    const login = await http(system.base, 'POST', '/auth', { body: { username: 'admin', password: 'admin-password-for-tests' } })
    expect(login.status).toBe(200)
    const auth = { authorization: `Bearer ${login.body.data.access_token}` }
    expectError(await http(system.base, 'POST', '/objects', { raw: '{"data": ', headers: { ...auth, 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON')
    expectError(await http(system.base, 'POST', '/objects', { raw: '<data/>', headers: { ...auth, 'content-type': 'application/xml' } }), 415, 'UNSUPPORTED_MEDIA_TYPE')
    const huge = JSON.stringify({ data: { object_type: 'document', title: 'x'.repeat(1_100_000) } })
    expectError(await http(system.base, 'POST', '/objects', { raw: huge, headers: { ...auth, 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE')
    expectError(await http(system.base, 'POST', '/objects', { body: { data: { object_type: 'document' } } }), 401, 'AUTHENTICATION_REQUIRED')
  })

  it('a present but invalid token is a 401 even on a public read', async () => {
    expectError(await http(system.base, 'GET', '/objects/1', { headers: { authorization: 'Bearer not.a.token' } }), 401, 'TOKEN_INVALID')
    expectError(await http(system.base, 'GET', '/objects/1?access_token=garbage'), 401, 'TOKEN_INVALID')
  })

  it('the bootstrapped admin logs in and GET /me names the administrator group', async () => {
    const login = await http(system.base, 'POST', '/auth', { body: { username: 'admin', password: 'admin-password-for-tests' } })
    expect(login.status).toBe(200)
    expect(login.body.data).toMatchObject({ expires_in: 600 })
    const me = await http(system.base, 'GET', '/me', { headers: { authorization: `Bearer ${login.body.data.access_token}` } })
    expect(me.status).toBe(200)
    expect(me.body.data.user).toMatchObject({ username: 'admin', groups: ['administrator'] })
  })

  it('GET /healthz and /readyz answer while every backend is up', async () => {
    expect((await http(system.base, 'GET', '/healthz')).status).toBe(200)
    expect((await http(system.base, 'GET', '/readyz')).status).toBe(200)
  })

  it('GET /poster/1 answers a placeholder the system really serves: the publication has no image', async () => {
    const res = await http(system.base, 'GET', '/poster/1')
    expect(res.status).toBe(200)
    expect(res.body.data.id).toBe(1)
    const thumb = await fetch(res.body.data.uri)
    expect([thumb.status, thumb.headers.get('content-type')]).toEqual([200, 'image/png'])
  })
})
