import { describe, expect, it } from 'vitest'
import { IMAGE_KEY, signThumbnail } from '../support/fake-poster.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest()

const get = (url: string, headers: Record<string, string> = {}) => gw.app.inject({ method: 'GET', url, headers })
const lastCall = (method: string) => gw.backends.calls.filter((c) => c.method === method).at(-1)?.request as Record<string, unknown>

describe('GET / (base address)', () => {
  it('lists every endpoint with absolute URLs, keys sorted, api ""', async () => {
    const res = await get('/')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({
      api: '', method: 'get', params: [], url: 'http://localhost:80/',
      data: {
        auth: 'http://localhost:80/auth', changes: 'http://localhost:80/changes', docs: 'http://localhost:80/docs', files: 'http://localhost:80/files', me: 'http://localhost:80/me',
        objects: 'http://localhost:80/objects', 'openapi.json': 'http://localhost:80/openapi.json', poster: 'http://localhost:80/poster',
        trash: 'http://localhost:80/trash',
      },
    })
  })
})

describe('GET /objects', () => {
  it('answers data.objects with paging and forwards page, filters and the anonymous caller', async () => {
    const res = await get('/objects?page=1&page_size=2&filter[object_type]=document,image&filter[query]=he')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ api: 'objects', method: 'get', url: 'http://localhost:80/objects', params: { page: '1', page_size: '2', 'filter[object_type]': 'document,image', 'filter[query]': 'he' } })
    expect(body.data.objects.map((o: { id: number }) => o.id)).toEqual([3, 4])
    expect(body.paging).toEqual({ page: 1, page_size: 2, page_count: 2, total: 2, total_pages: 1 })
    expect(lastCall('objects.ListObjects')).toMatchObject({ caller: { user_id: 0, groups: [] }, page: { page: 1, page_size: 2 }, filter: { object_types: ['document', 'image'], query: 'he' } })
  })

  it('when past the end, then an empty list still carries paging', async () => {
    const res = await get('/objects?page=9')
    expect(res.json()).toMatchObject({ data: { objects: [] }, paging: { page: 9, page_count: 0, total: 4 } })
  })

  it('when a token is sent, then the caller carries its user id and groups', async () => {
    await get('/objects', { authorization: `Bearer ${await signToken({ id: 5, groups: ['members'] })}` })
    expect(lastCall('objects.ListObjects').caller).toEqual({ user_id: 5, groups: ['members'], may_write: false })
  })

  it.each([
    ['/objects?page=0', 'INVALID_PARAMETER', 'page'],
    ['/objects?page_size=101', 'PAGE_SIZE_TOO_LARGE', 'page_size'],
    ['/objects?order=title', 'UNKNOWN_QUERY_PARAMETER', 'order'],
    ['/objects?sort=colour', 'INVALID_PARAMETER', 'sort'],
    ['/objects?filter[colour]=red', 'INVALID_PARAMETER', 'filter[colour]'],
    ['/objects?filter[object_type]=spaceship', 'INVALID_PARAMETER', 'filter[object_type]'],
  ])('%s → 400 %s', async (url, code, param) => {
    const res = await get(url)
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ status: 400, code, message: expect.stringContaining(param), more_info: `http://localhost:80/docs/errors#${code}` })
    expect(gw.backends.calls).toHaveLength(0)
  })
})

describe('GET /objects/{id}', () => {
  it('answers data.object by id', async () => {
    const res = await get('/objects/3')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.object).toMatchObject({ id: 3, object_type: 'document', nickname: 'hello', note: null, relations: { attach: { count: 1, url: 'http://localhost:80/objects/3/relations/attach' } } })
  })

  it('accepts a nickname and forwards it as is', async () => {
    expect((await get('/objects/hello')).json().data.object.id).toBe(3)
    expect(lastCall('objects.GetObject').object_id).toBe('hello')
  })

  it.each([
    ['/objects/99', 404, 'OBJECT_NOT_FOUND', {}],
    ['/objects/6', 401, 'OBJECT_PROTECTED', {}],
    ['/objects/0', 400, 'INVALID_OBJECT_ID', {}],
    ['/objects/9007199254740992', 400, 'INVALID_OBJECT_ID', {}],
  ])('%s → %i %s', async (url, status, code, headers) => {
    const res = await get(url, headers)
    expect(res.statusCode).toBe(status)
    expect(res.json()).toEqual({ error: { status, code, message: expect.any(String), details: null, more_info: `http://localhost:80/docs/errors#${code}`, url: `http://localhost:80${url}` } })
  })

  it('when the token lacks the group, then 403; with it, 200', async () => {
    expect((await get('/objects/6', { authorization: `Bearer ${await signToken({ groups: ['editor'] })}` })).statusCode).toBe(403)
    expect((await get('/objects/6', { authorization: `Bearer ${await signToken({ groups: ['members'] })}` })).statusCode).toBe(200)
  })
})

describe('tree reads', () => {
  it.each([
    ['children', [2, 3]], ['sections', [2]], ['contents', [3]], ['descendants', [2, 3]],
  ])('GET /objects/1/%s lists with paging', async (filter, ids) => {
    const res = await get(`/objects/1/${filter}`)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.objects.map((o: { id: number }) => o.id)).toEqual(ids)
    expect(res.json().paging).toMatchObject({ page: 1, page_size: 20, total: ids.length })
    expect(lastCall('tree.ListTree')).toMatchObject({ object_id: '1', kind: filter.toUpperCase() })
  })

  it('GET /objects/3/siblings lists the others; the publication has none (404 NO_PARENT)', async () => {
    expect((await get('/objects/3/siblings')).json().data.objects.map((o: { id: number }) => o.id)).toEqual([2])
    const res = await get('/objects/1/siblings')
    expect(res.statusCode).toBe(404)
    expect(res.json().error.code).toBe('NO_PARENT')
  })

  it('when the node is not a section, then 400 NOT_A_TREE_NODE', async () => {
    const res = await get('/objects/3/children')
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('NOT_A_TREE_NODE')
  })

  it('GET /objects/1/children/3 → {priority}; absent child 404', async () => {
    expect((await get('/objects/1/children/3')).json()).toMatchObject({ api: 'objects', data: { priority: 2 } })
    expect((await get('/objects/1/children/4')).json().error.code).toBe('CHILD_NOT_FOUND')
  })
})

describe('relation reads', () => {
  it('GET /objects/3/relations → {name: {count, url}}', async () => {
    expect((await get('/objects/3/relations')).json().data).toEqual({ attach: { count: 1, url: 'http://localhost:80/objects/3/relations/attach' } })
  })

  it('HEAD /objects/3 → the ETag of GET /objects/3, no body', async () => {
    const got = await get('/objects/3')
    const head = await gw.app.inject({ method: 'HEAD', url: '/objects/3' })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers.etag).toBe(got.headers.etag)
  })

  it('GET /objects/hello/relations (by nickname) → the URLs still name the numeric id', async () => {
    expect((await get('/objects/hello/relations')).json().data).toEqual({ attach: { count: 1, url: 'http://localhost:80/objects/3/relations/attach' } })
  })

  it('GET /objects/3/relations/attach → paginated objects with meta.relation', async () => {
    const body = (await get('/objects/3/relations/attach')).json()
    expect(body.data.objects).toHaveLength(1)
    expect(body.data.objects[0]).toMatchObject({ id: 4, meta: { relation: { priority: 1, params: { label: 'x' } } } })
    expect(body.paging).toEqual({ page: 1, page_size: 20, page_count: 1, total: 1, total_pages: 1 })
  })

  it('when the relation name is not valid for the type, then 400 UNKNOWN_RELATION', async () => {
    expect((await get('/objects/3/relations/bogus')).json().error).toMatchObject({ status: 400, code: 'UNKNOWN_RELATION' })
  })

  it('GET /objects/3/relations/attach/4 → {priority, params}; absent → 404', async () => {
    expect((await get('/objects/3/relations/attach/4')).json().data).toEqual({ priority: 1, params: { label: 'x' } })
    expect((await get('/objects/3/relations/attach/5')).statusCode).toBe(404)
  })
})

describe('GET /poster/{id}', () => {
  const thumb = `${IMAGE_KEY}/130x85.jpg`

  it('when asked, then one GetPoster call without sizes answers {id, uri}', async () => {
    const res = await get('/poster/3')
    expect(res.json()).toMatchObject({
      api: 'poster', data: { id: 4, uri: `http://localhost:80/thumbnails/${thumb}?sig=${signThumbnail(thumb, '')}` },
    })
    expect(gw.backends.calls.map((c) => c.method)).toEqual(['poster.GetPoster'])
    expect(lastCall('poster.GetPoster')).toEqual({ object_id: '3' })
    expect(gw.backends.calls.at(-1)?.caller).toEqual({ user_id: 0, groups: [], may_write: false })
  })

  it.each([
    ['?width=300&height=200', { width: '300', height: '200' }], ['?width=50', { width: '50' }], ['?height=4096', { height: '4096' }],
  ])('when the query is %s, then exactly those raw values go to the poster service', async (query, sizes) => {
    await get(`/poster/hello${query}`)
    expect(lastCall('poster.GetPoster')).toEqual({ object_id: 'hello', ...sizes })
  })

  it.each(['width=0', 'width=4097', 'height=1.5', 'width=-1', 'width=abc', 'height=01', 'width='])(
    'when %s, then the poster service\'s 400 INVALID_PARAMETER comes through', async (query) => {
      const res = await get(`/poster/3?${query}`)
      expect(res.json().error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter: query.split('=')[0] } })
      expect(lastCall('poster.GetPoster')).toMatchObject({ [query.split('=')[0] ?? '']: query.split('=')[1] })
    })

  it('when the object is absent or protected, then the poster service\'s 404/401/403 come through, without a pre-fetch', async () => {
    expect((await get('/poster/999')).json().error).toMatchObject({ status: 404, code: 'OBJECT_NOT_FOUND' })
    expect((await get('/poster/secret')).json().error).toMatchObject({ status: 401, code: 'OBJECT_PROTECTED' })
    const editor = { authorization: `Bearer ${await signToken({ groups: ['editor'] })}` }
    expect((await get('/poster/secret', editor)).json().error).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' })
    expect(gw.backends.calls.filter((c) => c.method.startsWith('objects.'))).toHaveLength(0)
  })

  it('when the uri is followed, then the gateway serves that thumbnail', async () => {
    const uri = new URL((await get('/poster/3?width=20&height=10')).json().data.uri as string)
    const res = await get(uri.pathname + uri.search)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/jpeg')
    expect(res.rawPayload.length).toBe(200)
  })

  it('when the backend is not implemented, then 501 NOT_IMPLEMENTED, never a fake success', async () => {
    const original = gw.backends.poster.GetPoster
    gw.backends.poster.GetPoster = async () => { const { DomainError } = await import('@content/platform'); throw new DomainError('NOT_IMPLEMENTED', 'not yet') }
    try {
      const res = await get('/poster/3')
      expect(res.statusCode).toBe(501)
      expect(res.json().error).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' })
    } finally {
      gw.backends.poster.GetPoster = original
    }
  })
})

describe('media fields of objects', () => {
  it('when an image has a file, then the object JSON carries uri, name, mime_type, file_size, width, height; the uri serves it', async () => {
    const object = (await get('/objects/4')).json().data.object
    expect(object).toMatchObject({
      uri: 'http://localhost:80/media/4/%C3%A9t%C3%A9%202024.jpg', name: 'été 2024.jpg', mime_type: 'image/jpeg',
      file_size: 300_000, width: 640, height: 480,
    })
    const res = await get(new URL(object.uri as string).pathname)
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBe(300_000)
  })

  it('when a document, then none of the media keys', async () => {
    expect('uri' in (await get('/objects/3')).json().data.object).toBe(false)
  })
})

describe('backend failures', () => {
  it('when a backend throws an internal error, then 500 without its text', async () => {
    const original = gw.backends.objects.GetObject
    gw.backends.objects.GetObject = async () => { throw new Error('SQLITE_CORRUPT: /data/objects.sqlite') }
    try {
      const res = await get('/objects/3')
      expect(res.statusCode).toBe(500)
      expect(res.json().error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'internal error', details: null })
      expect(res.body).not.toContain('SQLITE')
    } finally {
      gw.backends.objects.GetObject = original
    }
  })
})
