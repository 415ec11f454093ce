import { beforeAll, describe, expect, it } from 'vitest'
import { ROUTE_TABLE } from '../../src/http/route-table.js'
import type { RouteName } from '../../src/routing/route-types.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest({ routing: { writableTypes: ['document', 'section'], objectTypeEndpoints: ['documents', 'sections', 'images'] } })
let auth: Record<string, string>
beforeAll(async () => {
  auth = { authorization: `Bearer ${await signToken({ id: 7, groups: ['editor', 'members'], backend_auth: true })}` }
})

/**
 * Not counted here: handlers that answer without the backends (the listing, the docs, GET /auth from the
 * token), custom modules, and the byte streams of uploads and media, which have their own tests. GET /me
 * asks the auth service for the account and the objects service for its card, a preview read the auth
 * service for its writer's access and the objects service for the object: one call to each.
 */
// changes.stream: fed by the gateway's one change feed, no call of its own; changes.ticket: one auth call
// the fakes do not answer (both in test/live-changes.test.ts)
const NOT_COUNTED: ReadonlySet<RouteName> = new Set<RouteName>([
  'changes.stream', 'changes.ticket', 'listing', 'auth.status', 'me', 'preview.get', 'custom', 'docs.openapi', 'docs.page', 'docs.errors', 'docs.asset', 'files.upload', 'media.original', 'media.thumbnail',
])

type Case = [RouteName, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?]

// With the read cache off, each request is one call to one backend, whether it succeeds or fails, and
// whichever check fails: the object's type below an object-type endpoint, the body's shape, a nickname.
const CASES: Case[] = [
  ['auth.login', 'POST', '/auth', { username: 'admin', password: 'secret' }],
  ['auth.revoke', 'DELETE', '/auth/known'],
  ['poster', 'GET', '/poster/4'],
  ['objects.list', 'GET', '/objects'],
  ['objects.get', 'GET', '/objects/hello'],
  ['objects.save', 'POST', '/objects', { data: { object_type: 'document', title: 'One call', parents: [1] } }],
  ['objects.save', 'POST', '/objects', { title: 'no data member' }],
  ['objects.delete', 'DELETE', '/objects/5'],
  ['type.list', 'GET', '/documents'],
  ['type.get', 'GET', '/documents/3'],
  ['type.get', 'GET', '/documents/2'],
  ['tree.list', 'GET', '/sections/news/children'],
  ['tree.list', 'GET', '/documents/news/children'],
  ['children.get', 'GET', '/objects/2/children/3'],
  ['children.get', 'GET', '/documents/2/children/3'],
  ['children.save', 'POST', '/objects/2/children', { data: { child_id: 3 } }],
  ['children.save', 'POST', '/objects/2/children', { data: [] }],
  ['children.update', 'PUT', '/objects/2/children/3', { data: { priority: 2 } }],
  ['children.update', 'PUT', '/objects/2/children/3', { data: { priority: -1 } }],
  ['children.remove', 'DELETE', '/objects/2/children/3'],
  ['relations.summary', 'GET', '/objects/hello/relations'],
  ['relations.summary', 'GET', '/images/hello/relations'],
  ['relations.list', 'GET', '/documents/3/relations/attach'],
  ['relations.get', 'GET', '/documents/3/relations/attach/4'],
  ['relations.save', 'POST', '/objects/3/relations/attach', { data: { related_id: 4 } }],
  ['relations.save', 'POST', '/objects/999/relations/attach', { data: { related_id: 'x' } }],
  ['relations.replace', 'PUT', '/objects/3/relations/attach/4', { data: { priority: 3 } }],
  ['relations.replace', 'PUT', '/objects/3/relations/attach/4', { data: {} }],
  ['relations.delete', 'DELETE', '/objects/3/relations/attach/4'],
  ['trash.list', 'GET', '/trash'],
  ['preview.create', 'POST', '/objects/3/preview'],
  ['revisions.list', 'GET', '/objects/3/revisions'],
  ['revisions.get', 'GET', '/objects/3/revisions/1'],
  ['revisions.restore', 'POST', '/objects/3/revisions/1/restore'],
  ['trash.restore', 'POST', '/trash/5/restore'],
  ['trash.purge', 'DELETE', '/trash/5'],
]

describe('one backend call per request', () => {
  it('the cases cover every handler that calls a backend', () => {
    const covered = new Set(CASES.map(([key]) => key))
    const calling = [...new Set(ROUTE_TABLE.map((row) => row.name))].filter((key) => !NOT_COUNTED.has(key))
    expect(calling.filter((key) => !covered.has(key))).toEqual([])
  })

  it.each(CASES)('%s: %s %s makes exactly one backend call', async (_key, method, url, body) => {
    gw.backends.calls.length = 0
    const res = await gw.app.inject({
      method, url, headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
    expect(res.statusCode).toBeLessThan(500)
    expect(gw.backends.calls.map((c) => c.method)).toHaveLength(1)
  })

  it('a preview read trades its token with the auth service, then reads as the writer it answers: one call to each', async () => {
    gw.backends.calls.length = 0
    const res = await gw.app.inject({ method: 'GET', url: '/objects/3/preview?token=preview-token' })
    expect(res.statusCode, res.body).toBe(200)
    expect(gw.backends.calls.map((c) => [c.method, c.caller.user_id])).toEqual([['auth.ExchangePreviewToken', 0], ['objects.GetPreview', 9]])
  })

  it('a preview token the auth service refuses is a 401 and never reaches the objects service', async () => {
    gw.backends.calls.length = 0
    const res = await gw.app.inject({ method: 'GET', url: '/objects/3/preview?token=of-a-gone-writer' })
    expect([res.statusCode, res.json().error.code]).toEqual([401, 'PREVIEW_TOKEN_INVALID'])
    expect(gw.backends.calls.map((c) => c.method)).toEqual(['auth.ExchangePreviewToken'])
  })

  it('below an object-type endpoint, an object of another type is 404 from the objects service, in one call', async () => {
    gw.backends.calls.length = 0
    const res = await gw.app.inject({ method: 'GET', url: '/documents/news/children', headers: auth })
    expect(res.json().error).toMatchObject({ status: 404, code: 'OBJECT_NOT_FOUND', message: 'no document with id or nickname "news"' })
    expect(gw.backends.calls).toMatchObject([{ method: 'tree.ListTree', request: { object_id: 'news', object_type: 'document' } }])
  })

  it('a relation summary asked by nickname names the numeric id in its URLs, from the one answer', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/objects/hello/relations', headers: auth })
    expect(res.json().data).toEqual({ attach: { count: 1, url: 'http://localhost:80/objects/3/relations/attach' } })
  })
})
