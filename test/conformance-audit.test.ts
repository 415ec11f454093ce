import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, startSeeded, type SeededSystem } from './support/seeded.js'
import { http } from './support/system.js'

// Disagreements an adversarial conformance audit found between the running system and the
// specification, the decisions or what a client of a well-run API expects; each case fails without its fix.
describe('conformance audit', () => {
  let s: SeededSystem
  let base: string
  const admin = () => ({ authorization: `Bearer ${s.tokens.admin}` })

  beforeAll(async () => {
    s = await startSeeded()
    base = s.system.base
  })
  afterAll(async () => { await s?.stop() })

  it('a repeated query parameter is a 400 naming it, not read from one copy and echoed from another', async () => {
    for (const query of ['filter[query]=zzz&filter[query]=Welcome', 'filter[object_type]=event&filter[object_type]=document', 'page_size=1&page_size=2']) {
      const res = await s.get(`/objects?${query}`)
      expectError(res, 400, 'INVALID_PARAMETER')
      expect(res.body.error.details).toEqual({ parameter: query.split('=')[0] })
    }
  })

  it('every 401 carries a Bearer challenge (RFC 9110 §11.6.1), with invalid_token for a bad token', async () => {
    const anonymousWrite = await http(base, 'DELETE', '/objects/welcome')
    expectError(anonymousWrite, 401, 'AUTHENTICATION_REQUIRED')
    expect(anonymousWrite.headers.get('www-authenticate')).toBe('Bearer realm="content-objects"')
    const protectedRead = await s.get('/objects/private-corner')
    expectError(protectedRead, 401, 'OBJECT_PROTECTED')
    expect(protectedRead.headers.get('www-authenticate')).toBe('Bearer realm="content-objects"')
    const bad = await s.get('/objects/welcome', 'anonymous', { authorization: 'Bearer not-a-token' })
    expectError(bad, 401, 'TOKEN_INVALID')
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="content-objects", error="invalid_token"/)
    const login = await http(base, 'POST', '/auth', { body: { username: 'admin', password: 'wrong-password' } })
    expectError(login, 401, 'LOGIN_FAILED')
    expect(login.headers.get('www-authenticate')).toBe('Bearer realm="content-objects"')
  })

  it('a publication window or a date item that ends before it starts is a 400 naming end_date', async () => {
    const window = { start_date: '2026-02-01T00:00:00+0100', end_date: '2026-01-31T22:59:59+00:00' }
    const parents = [s.refs.news]
    const doc = await http(base, 'POST', '/objects', { headers: admin(), body: { data: { object_type: 'document', title: 'Backwards', parents, ...window } } })
    expectError(doc, 400, 'VALIDATION_FAILED')
    expect(doc.body.error.details).toEqual({ end_date: 'must not be before start_date' })
    const event = await http(base, 'POST', '/objects', { headers: admin(), body: { data: { object_type: 'event', title: 'Backwards', parents, date_items: [window] } } })
    expectError(event, 400, 'VALIDATION_FAILED')
    expect(event.body.error.details).toEqual({ 'date_items.0.end_date': 'must not be before start_date' })
    // the same instant at both ends is a valid (empty) period
    const same = await http(base, 'POST', '/objects', { headers: admin(), body: { data: { object_type: 'event', title: 'Instant', parents, date_items: [{ start_date: window.start_date, end_date: '2026-01-31T23:00:00Z' }] } } })
    expect(same.status, JSON.stringify(same.body)).toBe(201)
  })

  it('a relation write that lists the same related object twice is a 400, not two contradicting "saved" items', async () => {
    const created = await http(base, 'POST', '/objects', { headers: admin(), body: { data: { object_type: 'document', title: 'Twice', parents: [s.refs.news] } } })
    expect(created.status).toBe(201)
    const path = `/objects/${created.body.data.object.id}/relations/seealso`
    const twice = [{ related_id: s.refs.howto }, { related_id: s.refs.howto, priority: 4 }]
    const res = await http(base, 'POST', path, { headers: admin(), body: { data: twice } })
    expectError(res, 400, 'VALIDATION_FAILED')
    expect(res.body.error.details).toEqual({ related_id: 'a related object is listed twice' })
    expect((await s.get(path)).body.paging.total).toBe(0)
    const inCreate = await http(base, 'POST', '/objects', { headers: admin(), body: { data: { object_type: 'document', title: 'Twice', parents: [s.refs.news], relations: { seealso: twice } } } })
    expectError(inCreate, 400, 'VALIDATION_FAILED')
  })

  it('PUT of a child position names an unknown field, like every other write body', async () => {
    const res = await http(base, 'PUT', `/objects/news/children/${s.refs.welcome}`, { headers: admin(), body: { data: { priority: 3, child_id: 1 } } })
    expectError(res, 400, 'VALIDATION_FAILED')
    expect(res.body.error.details).toEqual({ 'data.child_id': 'is not a known field' })
  })

  it('GET /poster/{id} answers the object\'s own 404, 401 and 403 (spec 4.9) before anything about thumbnails', async () => {
    expectError(await s.get('/poster/987654'), 404, 'OBJECT_NOT_FOUND')
    expectError(await s.get('/poster/no-such-nickname'), 404, 'OBJECT_NOT_FOUND')
    expectError(await s.get('/poster/private-corner'), 401, 'OBJECT_PROTECTED')
    expectError(await s.get('/poster/private-corner', 'outsider'), 403, 'PERMISSION_DENIED')
  })

  it('GET /auth, which answers the access token, is private and never stored', async () => {
    const res = await http(base, 'GET', '/auth', { headers: admin() })
    expect(res.status).toBe(200)
    expect(res.body.data.access_token).toBe(s.tokens.admin)
    expect(res.headers.get('cache-control')).toBe('private, no-store')
    expect(res.headers.get('etag')).toBeNull()
  })
})
