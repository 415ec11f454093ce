import { describe, expect, it } from 'vitest'
import type { Handler } from '../../src/http/context.js'
import { compileRoutes } from '../../src/http/route-table.js'
import { validateRoutingConfig } from '../../src/routing/config-file.js'
import { resolve } from '../../src/routing/resolve.js'
import type { Method } from '../../src/routing/defaults.js'
import type { Resolution } from '../../src/routing/route-types.js'

const customs = new Set(['echo', 'ping'])
const table = (file: Record<string, unknown> = {}) => compileRoutes(
  validateRoutingConfig(file, customs), new Map<string, readonly Method[] | 'ALL'>([['echo', 'ALL'], ['ping', ['GET']]]),
)
const segs = (path: string) => path.split('/').filter(Boolean)

type Expect =
  | { handler: string, params?: Record<string, unknown>, endpoint?: string, rawBody?: true }
  | { status: number, reason: string, allow?: string[], rawBody?: true }

function check (res: Resolution<Handler>, want: Expect) {
  if ('handler' in want) {
    expect(res.kind === 'route' ? res.route.spec.name : res).toBe(want.handler)
    if (want.params && res.kind === 'route') expect(res.params).toEqual(want.params)
    if (want.endpoint !== undefined && res.kind === 'route') expect(res.route.endpoint).toBe(want.endpoint)
  } else {
    expect(res).toMatchObject({ kind: 'error', status: want.status, reason: want.reason })
    if (want.allow && res.kind === 'error') expect(res.allow).toEqual(want.allow)
  }
  // only the files endpoint's bodies are file bytes, whatever its answer
  expect(res.rawBody).toBe(want.rawBody)
}

describe('resolve() with the default table', () => {
  const t = table()
  const rows: Array<[string, string, Expect]> = [
    ['GET', '/', { handler: 'listing', endpoint: '' }],
    ['HEAD', '/', { handler: 'listing' }],
    ['POST', '/', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/nope', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['PATCH', '/nope', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['GET', '/documents', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['GET', '/echo', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    // auth
    ['POST', '/auth', { handler: 'auth.login', endpoint: 'auth' }],
    ['GET', '/auth', { handler: 'auth.status' }],
    ['PUT', '/auth', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['DELETE', '/auth', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['PATCH', '/auth', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['DELETE', '/auth/abc.def', { handler: 'auth.revoke', params: { refreshToken: 'abc.def' } }],
    ['GET', '/auth/abc', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['DELETE'] }],
    ['DELETE', '/auth/abc/def', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    // me
    ['GET', '/me', { handler: 'me', params: {} }],
    ['POST', '/me', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/me/x', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    // poster
    ['GET', '/poster/12', { handler: 'poster', params: { objectId: '12' } }],
    ['GET', '/poster/my-nick', { handler: 'poster', params: { objectId: 'my-nick' } }],
    ['POST', '/poster/12', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/poster', { status: 400, reason: 'MISSING_PARAMETER' }],
    ['GET', '/poster/0', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/poster/1/2', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    // objects
    ['GET', '/objects', { handler: 'objects.list', params: {} }],
    ['POST', '/objects', { handler: 'objects.save' }],
    ['PUT', '/objects', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['DELETE', '/objects', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['GET', '/objects/5', { handler: 'objects.get', params: { objectId: '5' } }],
    ['GET', '/objects/007', { handler: 'objects.get', params: { objectId: '7' } }],
    ['GET', '/objects/home-page', { handler: 'objects.get', params: { objectId: 'home-page' } }],
    ['GET', '/objects/5a', { handler: 'objects.get', params: { objectId: '5a' } }],
    ['DELETE', '/objects/5', { handler: 'objects.delete' }],
    ['POST', '/objects/5', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'DELETE'] }],
    ['PUT', '/objects/5', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'DELETE'] }],
    ['PATCH', '/objects/5', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'DELETE'] }],
    ['GET', '/objects/0', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/objects/9007199254740991', { handler: 'objects.get', params: { objectId: '9007199254740991' } }],
    ['GET', '/objects/9007199254740992', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/objects/99999999999999999999999', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    // tree filters
    ['GET', '/objects/5/children', { handler: 'tree.list', params: { objectId: '5', filter: 'children' } }],
    ['GET', '/objects/5/sections', { handler: 'tree.list', params: { objectId: '5', filter: 'sections' } }],
    ['GET', '/objects/5/contents', { handler: 'tree.list', params: { objectId: '5', filter: 'contents' } }],
    ['GET', '/objects/5/descendants', { handler: 'tree.list', params: { objectId: '5', filter: 'descendants' } }],
    ['GET', '/objects/5/siblings', { handler: 'tree.list', params: { objectId: '5', filter: 'siblings' } }],
    ['GET', '/objects/5/ancestors', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['GET', '/objects/5/parents', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['POST', '/objects/5/contents', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/objects/5/contents/3', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    ['GET', '/objects/5/bogus', { status: 400, reason: 'UNKNOWN_PATH_FILTER' }],
    ['POST', '/objects/5/bogus/1', { status: 400, reason: 'UNKNOWN_PATH_FILTER' }],
    ['GET', '/objects/0/children', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    // children
    ['POST', '/objects/5/children', { handler: 'children.save', params: { objectId: '5', filter: 'children' } }],
    ['PUT', '/objects/5/children', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['GET', '/objects/5/children/9', { handler: 'children.get', params: { objectId: '5', filter: 'children', childId: 9 } }],
    ['PUT', '/objects/5/children/9', { handler: 'children.update' }],
    ['DELETE', '/objects/5/children/9', { handler: 'children.remove' }],
    ['POST', '/objects/5/children/9', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'PUT', 'DELETE'] }],
    ['GET', '/objects/5/children/x', { status: 400, reason: 'INVALID_PARAMETER' }],
    ['GET', '/objects/5/children/0', { status: 400, reason: 'INVALID_PARAMETER' }],
    ['GET', '/objects/5/children/9/1', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    // relations
    ['GET', '/objects/5/relations', { handler: 'relations.summary', params: { objectId: '5', filter: 'relations' } }],
    ['POST', '/objects/5/relations', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/objects/5/relations/attach', { handler: 'relations.list', params: { objectId: '5', filter: 'relations', relationName: 'attach' } }],
    ['POST', '/objects/5/relations/attach', { handler: 'relations.save' }],
    ['DELETE', '/objects/5/relations/attach', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST'] }],
    ['GET', '/objects/5/relations/attach/7', { handler: 'relations.get', params: { objectId: '5', filter: 'relations', relationName: 'attach', relatedId: 7 } }],
    ['PUT', '/objects/5/relations/attach/7', { handler: 'relations.replace' }],
    ['DELETE', '/objects/5/relations/attach/7', { handler: 'relations.delete' }],
    ['POST', '/objects/5/relations/attach/7', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'PUT', 'DELETE'] }],
    ['GET', '/objects/5/relations/attach/-1', { status: 400, reason: 'INVALID_PARAMETER' }],
    ['GET', '/objects/5/relations/attach/9007199254740992', { status: 400, reason: 'INVALID_PARAMETER' }],
    ['GET', '/objects/5/relations/attach/7/8', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    // files (uploads)
    ['POST', '/files/image/photo.jpg', { handler: 'files.upload', endpoint: 'files', params: { objectType: 'image', fileName: 'photo.jpg' }, rawBody: true }],
    ['POST', '/files/b_e_file/a b%.txt', { handler: 'files.upload', params: { objectType: 'b_e_file', fileName: 'a b%.txt' }, rawBody: true }],
    ['POST', '/files/spaceship/x', { handler: 'files.upload', params: { objectType: 'spaceship', fileName: 'x' }, rawBody: true }],
    ['POST', '/files', { status: 400, reason: 'MISSING_PARAMETER', rawBody: true }],
    ['POST', '/files/image', { status: 400, reason: 'MISSING_PARAMETER', rawBody: true }],
    ['POST', '/files/image/a.jpg/b', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS', rawBody: true }],
    ['GET', '/files/image/a.jpg', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['POST'], rawBody: true }],
    ['HEAD', '/files', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['POST'], rawBody: true }],
    ['PUT', '/files/image/a.jpg', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['POST'], rawBody: true }],
    ['DELETE', '/files/image', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['POST'], rawBody: true }],
    ['PATCH', '/files/image/a.jpg/b', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['POST'], rawBody: true }],
    // originals
    ['GET', '/media/4/pic.jpg', { handler: 'media.original', endpoint: 'media', params: { objectId: '4', fileName: 'pic.jpg' } }],
    ['HEAD', '/media/004/pic.jpg', { handler: 'media.original', params: { objectId: '4', fileName: 'pic.jpg' } }],
    ['GET', '/media/my-pic/été 2024.jpg', { handler: 'media.original', params: { objectId: 'my-pic', fileName: 'été 2024.jpg' } }],
    ['GET', '/media/0/pic.jpg', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/media/9007199254740992/pic.jpg', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/media', { status: 400, reason: 'MISSING_PARAMETER' }],
    ['GET', '/media/4', { status: 400, reason: 'MISSING_PARAMETER' }],
    ['GET', '/media/4/pic.jpg/x', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    ['POST', '/media/4/pic.jpg', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['DELETE', '/media/4/pic.jpg', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['PUT', '/media', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    // thumbnails
    ['GET', '/thumbnails/abc/130x85.jpg', { handler: 'media.thumbnail', endpoint: 'thumbnails', params: { rest: ['abc', '130x85.jpg'] } }],
    ['HEAD', '/thumbnails/placeholder/10x10.png', { handler: 'media.thumbnail', params: { rest: ['placeholder', '10x10.png'] } }],
    ['GET', '/thumbnails/one', { handler: 'media.thumbnail', params: { rest: ['one'] } }],
    ['GET', '/thumbnails/a/b/c/d', { handler: 'media.thumbnail', params: { rest: ['a', 'b', 'c', 'd'] } }],
    ['GET', '/thumbnails', { status: 400, reason: 'MISSING_PARAMETER' }],
    ['POST', '/thumbnails/abc/1x1.png', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['PATCH', '/thumbnails', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
  ]
  it.each(rows)('%s %s', (method, path, want) => check(resolve(t, method, segs(path)), want))

  it('names the valid filters when the filter is unknown', () => {
    const res = resolve(t, 'GET', segs('/objects/5/bogus'))
    expect(res.kind === 'error' && res.message).toContain('relations, children, contents, sections, descendants, siblings')
    expect(res.kind === 'error' && res.details).toEqual({ filter: 'bogus', valid: ['relations', 'children', 'contents', 'sections', 'descendants', 'siblings'] })
  })

  it.each([
    ['POST', '/files', 'object_type is required: /files/{object_type}/{file_name}', 'object_type'],
    ['POST', '/files/image', 'file_name is required: /files/{object_type}/{file_name}', 'file_name'],
    ['GET', '/media', 'object_id is required: /media/{object_id}/{file_name}', 'object_id'],
    ['GET', '/media/4', 'file_name is required: /media/{object_id}/{file_name}', 'file_name'],
    ['GET', '/poster', 'object_id is required: /poster/{object_id}', 'object_id'],
    ['GET', '/thumbnails', 'path is required: /thumbnails/{path}', 'path'],
  ])('%s %s stops short of a parameter: 400 MISSING_PARAMETER naming it in the path it belongs to', (method, path, message, parameter) => {
    expect(resolve(t, method, segs(path))).toMatchObject({ kind: 'error', status: 400, reason: 'MISSING_PARAMETER', message, details: { parameter } })
  })

  it.each([
    ['/docs', { handler: 'docs.page' }],
    ['/docs/errors', { handler: 'docs.errors' }],
    ['/docs/assets/app.js', { handler: 'docs.asset', params: { asset: 'app.js' } }],
    ['/openapi.json', { handler: 'docs.openapi' }],
    ['/docs/nope', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['/docs/assets', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['/docs/assets/a/b', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['/docs/errors/x', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
    ['/openapi.json/x', { status: 400, reason: 'SURPLUS_PATH_SEGMENTS' }],
  ] as Array<[string, Expect]>)('GET %s, the API description', (path, want) => check(resolve(t, 'GET', segs(path)), want))

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s below the API description is 405 with Allow: GET, before anything about the path', (method) => {
    for (const path of ['/docs', '/docs/nope/x', '/openapi.json/x']) {
      expect(resolve(t, method, segs(path))).toMatchObject({ kind: 'error', status: 405, allow: ['GET'] })
    }
  })

  it('labels a route with its template, never its values', () => {
    const labels = ['/objects/5/relations/attach/7', '/objects/home/children', '/thumbnails/abc/1x1.png', '/']
      .map((path) => { const r = resolve(t, 'GET', segs(path)); return r.kind === 'route' ? r.route.label : r })
    expect(labels).toEqual(['/objects/{object_id}/relations/{relation_name}/{related_id}', '/objects/{object_id}/children', '/thumbnails/{key}/{file}', '/'])
  })
})

describe('resolve() with a configured table', () => {
  const t = table({
    basePath: '/api/v1/',
    blacklist: ['poster', 'me', 'files'],
    pathFilters: { GET: ['children', 'ancestors', 'parents', 'relations'], POST: ['relations'], PUT: ['relations'], DELETE: [] },
    objectTypeEndpoints: ['documents', 'galleries'],
    customEndpoints: ['echo', 'ping'],
  })
  const rows: Array<[string, string, Expect]> = [
    ['GET', '/', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['GET', '/objects', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['GET', '/api/objects', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    ['GET', '/api/v1', { handler: 'listing' }],
    ['GET', '/api/v1/objects', { handler: 'objects.list' }],
    // blacklist
    ['GET', '/api/v1/poster/5', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['GET', '/api/v1/me', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['POST', '/api/v1/files/image/a.jpg', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [], rawBody: true }],
    ['POST', '/files/image/a.jpg', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    // media paths live under the base path and cannot be blacklisted
    ['GET', '/api/v1/media/4/a.jpg', { handler: 'media.original', params: { objectId: '4', fileName: 'a.jpg' } }],
    ['GET', '/api/v1/thumbnails/k/1x1.png', { handler: 'media.thumbnail', params: { rest: ['k', '1x1.png'] } }],
    ['GET', '/media/4/a.jpg', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    // per-method filters
    ['GET', '/api/v1/objects/5/ancestors', { handler: 'tree.list', params: { objectId: '5', filter: 'ancestors' } }],
    ['GET', '/api/v1/objects/5/parents', { handler: 'tree.list', params: { objectId: '5', filter: 'parents' } }],
    ['GET', '/api/v1/objects/5/contents', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['POST', '/api/v1/objects/5/children', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['PUT', '/api/v1/objects/5/children/3', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['DELETE', '/api/v1/objects/5/relations/attach/3', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'PUT'] }],
    ['POST', '/api/v1/objects/5/relations/seealso', { handler: 'relations.save' }],
    // object-type endpoints
    ['GET', '/api/v1/documents', { handler: 'type.list', params: { objectType: 'document' }, endpoint: 'documents' }],
    ['POST', '/api/v1/documents', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/api/v1/galleries/9', { handler: 'type.get', params: { objectType: 'gallery', objectId: '9' } }],
    ['DELETE', '/api/v1/galleries/9', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/api/v1/documents/9/children', { handler: 'tree.list', params: { objectType: 'document', objectId: '9', filter: 'children' } }],
    ['POST', '/api/v1/documents/9/relations/attach', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
    ['GET', '/api/v1/documents/9/sections', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: [] }],
    ['GET', '/api/v1/documents/9/nope', { status: 400, reason: 'UNKNOWN_PATH_FILTER' }],
    ['GET', '/api/v1/documents/0', { status: 400, reason: 'INVALID_OBJECT_ID' }],
    ['GET', '/api/v1/events', { status: 404, reason: 'ENDPOINT_NOT_FOUND' }],
    // custom endpoints
    ['PUT', '/api/v1/echo/a/b', { handler: 'custom', params: { rest: ['a', 'b'] }, endpoint: 'echo' }],
    ['PATCH', '/api/v1/echo', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET', 'POST', 'PUT', 'DELETE'] }],
    ['GET', '/api/v1/ping', { handler: 'custom', params: { rest: [] } }],
    ['POST', '/api/v1/ping', { status: 405, reason: 'METHOD_NOT_ALLOWED', allow: ['GET'] }],
  ]
  it.each(rows)('%s %s', (method, path, want) => check(resolve(t, method, segs(path)), want))

  it('labels a route with the base path and the endpoint it was reached under', () => {
    const label = (method: string, path: string) => { const r = resolve(t, method, segs(path)); return r.kind === 'route' ? r.route.label : r }
    expect(label('GET', '/api/v1')).toBe('/api/v1')
    expect(label('GET', '/api/v1/documents/9/children')).toBe('/api/v1/documents/{object_id}/children')
    expect(label('PUT', '/api/v1/echo/a/b')).toBe('/api/v1/echo')
  })
})
