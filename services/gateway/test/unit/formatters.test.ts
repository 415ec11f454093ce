import { describe, expect, it } from 'vitest'
import { formatDate, formatOptionalDate } from '../../src/http/formatters/dates.js'
import { formatObject, formatRelatedObject, parseParams } from '../../src/http/formatters/object.js'
import { formatPaging, parsePaging } from '../../src/http/formatters/paging.js'
import { checkQuery, listFilter, refuseListOnly } from '../../src/http/query.js'
import { ROUTE_TABLE } from '../../src/http/route-table.js'
import type { RouteName } from '../../src/routing/route-types.js'

/** The query parameters the operation accepts. */
const acceptsOf = (name: RouteName) => ROUTE_TABLE.find((row) => row.name === name)?.accepts
import { CANNED } from '../support/fake-objects.js'
import { must } from '../support/must.js'

describe('formatDate', () => {
  const rows: Array<[string, number, string, string]> = [
    ['UTC', Date.UTC(2024, 0, 15, 10, 30, 5), 'UTC', '2024-01-15T10:30:05+0000'],
    ['drops milliseconds', Date.UTC(2024, 0, 15, 10, 30, 5, 999), 'UTC', '2024-01-15T10:30:05+0000'],
    ['Rome in winter', Date.UTC(2024, 0, 15, 10, 30, 5), 'Europe/Rome', '2024-01-15T11:30:05+0100'],
    ['Rome in summer', Date.UTC(2024, 6, 15, 10, 30, 5), 'Europe/Rome', '2024-07-15T12:30:05+0200'],
    ['New York', Date.UTC(2024, 0, 15, 3, 0, 0), 'America/New_York', '2024-01-14T22:00:00-0500'],
    ['Kolkata half hour', Date.UTC(2024, 0, 15, 0, 0, 0), 'Asia/Kolkata', '2024-01-15T05:30:00+0530'],
    ['Kathmandu 45 minutes', Date.UTC(2024, 0, 15, 0, 0, 0), 'Asia/Kathmandu', '2024-01-15T05:45:00+0545'],
    ['before the epoch', Date.UTC(1969, 11, 31, 23, 59, 59), 'UTC', '1969-12-31T23:59:59+0000'],
    ['midnight stays 00', Date.UTC(2024, 1, 29, 0, 0, 0), 'UTC', '2024-02-29T00:00:00+0000'],
  ]
  it.each(rows)('%s', (_name, ms, zone, want) => expect(formatDate(ms, zone)).toBe(want))

  it('when UTC, then the Intl-free path says what Intl says (Abidjan: GMT without DST since 1912)', () => {
    const step = 7_919_999_917 // ~92 days and an odd remainder: every month, hour and second get visited
    for (let ms = Date.UTC(1913, 0, 1); ms < Date.UTC(2200, 0, 1); ms += step) {
      expect(formatDate(ms, 'UTC')).toBe(formatDate(ms, 'Africa/Abidjan'))
      expect(formatDate(ms, 'Etc/UTC')).toBe(formatDate(ms, 'UTC'))
    }
  })

  it('when a year has not four digits, then the general path answers', () => {
    expect(formatDate(Date.UTC(500, 5, 1, 12, 0, 0), 'UTC')).toBe('0500-06-01T12:00:00+0000')
    expect(formatDate(Date.UTC(10_000, 0, 1, 0, 0, 0), 'UTC')).toBe('10000-01-01T00:00:00+0000')
    expect(() => formatDate(Number.NaN, 'UTC')).toThrow(RangeError)
  })

  it('when absent, then null', () => {
    expect(formatOptionalDate(undefined)).toBeNull()
    expect(formatOptionalDate(null)).toBeNull()
    expect(formatOptionalDate(0)).toBe('1970-01-01T00:00:00+0000')
  })
})

describe('formatObject', () => {
  const ctx = { baseUrl: 'https://api.example/v1', timeZone: 'UTC' }
  const byId = (id: number) => structuredClone(must(CANNED.find((o) => o.id === id))) as Parameters<typeof formatObject>[0]

  it('when a document, then every spec 2.3 field is present, absent texts are null, no proto artefacts', () => {
    const out = formatObject(byId(3), ctx)
    expect(Object.keys(out).sort()).toEqual([
      'abstract', 'authorized', 'body', 'categories', 'comments', 'created', 'creator', 'custom_properties', 'description',
      'end_date', 'free_access', 'geo_tags', 'id', 'lang', 'languages', 'license', 'modified', 'nickname', 'note',
      'object_type', 'object_type_id', 'publication_date', 'publisher', 'relations', 'rights', 'start_date', 'subject',
      'tags', 'title', 'valid',
    ])
    expect(out).toMatchObject({
      id: 3, object_type_id: 22, object_type: 'document', title: 'HELLO', note: null, subject: null, abstract: null,
      start_date: null, end_date: null, publication_date: '2024-05-06T07:08:09+0000', created: '2024-05-06T07:08:09+0000',
      languages: { it: { title: 'Ciao' } }, custom_properties: { color: 'blue' },
      relations: { attach: { count: 1, url: 'https://api.example/v1/objects/3/relations/attach' } },
      tags: [{ label: 'Tag One', name: 'tag-one' }], categories: [{ id: 9, area_id: null, label: 'Cat', name: 'cat' }],
    })
    expect(out.geo_tags).toEqual([{ id: 1, object_id: 3, title: 'Here', latitude: 45.5, longitude: 9.2, address: 'Milano', gmaps_lookats: { zoom: 5, mapType: 'k', latitude: 1, longitude: 2, range: 3 } }])
  })

  it('when relations and languages are empty, then {}', () => {
    expect(formatObject(byId(6), ctx)).toMatchObject({ relations: {}, languages: {}, custom_properties: {} })
  })

  it('when an area or section, then children has count/url and contents/sections summaries', () => {
    expect(formatObject(byId(1), ctx).children).toEqual({
      count: 2, url: 'https://api.example/v1/objects/1/children',
      contents: { count: 1, url: 'https://api.example/v1/objects/1/contents' },
      sections: { count: 1, url: 'https://api.example/v1/objects/1/sections' },
    })
    expect('children' in formatObject(byId(3), ctx)).toBe(false)
  })

  it('when an event, then date_items are formatted, days as the objects service stored them (distinct, sorted)', () => {
    expect(formatObject(byId(5), ctx).date_items).toEqual([{ start_date: '2024-05-06T07:08:09+0000', end_date: '2024-05-06T08:08:09+0000', days: [1, 3] }])
    expect('date_items' in formatObject(byId(3), ctx)).toBe(false)
  })

  it('when in a relation list, then meta.relation carries priority and parsed params', () => {
    const o = { ...byId(4), relation: { priority: 3, params_json: '{"label":"x"}' } }
    expect(formatRelatedObject(o, ctx).meta).toEqual({ relation: { priority: 3, params: { label: 'x' } } })
    expect(formatRelatedObject({ ...byId(4), relation: { params_json: '' } }, ctx).meta).toEqual({ relation: { priority: null, params: null } })
  })

  describe('media fields (decisions §12)', () => {
    const file = { key: 'k'.repeat(64), name: 'été 2024/#1?.jpg', mime_type: 'image/jpeg', size: 300_000, width: 640, height: 480 }
    const media = (type: string, extra: Partial<Parameters<typeof formatObject>[0]> = {}) =>
      formatObject({ ...byId(4), id: 4, object_type: type, ...extra }, ctx)

    it('when an image has a file, then uri (name percent-encoded), name, mime_type, file_size, width and height', () => {
      expect(media('image', { file })).toMatchObject({
        uri: 'https://api.example/v1/media/4/%C3%A9t%C3%A9%202024%2F%231%3F.jpg', name: 'été 2024/#1?.jpg',
        mime_type: 'image/jpeg', file_size: 300_000, width: 640, height: 480,
      })
    })

    it('when an image has no file, then each field is null', () => {
      const out = media('image', { file: null })
      expect(out).toMatchObject({ uri: null, name: null, mime_type: null, file_size: null, width: null, height: null })
      expect(media('image', { file: undefined })).toMatchObject({ uri: null, width: null })
    })

    it.each(['video', 'audio', 'b_e_file'])('when a %s, then the file fields without width and height', (type) => {
      const out = media(type, { file: { ...file, name: 'clip.bin', mime_type: 'video/mp4', width: 0, height: 0 } })
      expect(out).toMatchObject({ uri: 'https://api.example/v1/media/4/clip.bin', name: 'clip.bin', mime_type: 'video/mp4', file_size: 300_000 })
      expect('width' in out || 'height' in out).toBe(false)
      expect(media(type, { file: null })).toMatchObject({ uri: null, name: null, mime_type: null, file_size: null })
    })

    it('when the type carries no file, then none of the keys', () => {
      const out = formatObject(byId(3), ctx)
      for (const key of ['uri', 'name', 'mime_type', 'file_size', 'width', 'height']) expect(key in out).toBe(false)
    })

    it('when an image file has no known size, then width and height are null', () => {
      expect(media('image', { file: { ...file, width: 0, height: 0 } })).toMatchObject({ width: null, height: null, file_size: 300_000 })
    })
  })

  it.each([['', null], ['{}', {}], ['{"a":1}', { a: 1 }], ['[1]', null], ['nope', null]])('parseParams(%j)', (json, want) => {
    expect(parseParams(json)).toEqual(want)
  })
})

describe('paging parameters', () => {
  const q = (s: string) => new URLSearchParams(s)
  const ok: Array<[string, { page: number, page_size: number }]> = [
    ['', { page: 1, page_size: 20 }], ['page=3', { page: 3, page_size: 20 }], ['page_size=100', { page: 1, page_size: 100 }],
    ['page=2&page_size=1', { page: 2, page_size: 1 }],
  ]
  it.each(ok)('"%s" → %j', (query, want) => expect(parsePaging(q(query))).toEqual(want))

  const bad: Array<[string, string, string]> = [
    ['page=0', 'INVALID_PARAMETER', 'page'], ['page=-1', 'INVALID_PARAMETER', 'page'], ['page=1.5', 'INVALID_PARAMETER', 'page'],
    ['page=abc', 'INVALID_PARAMETER', 'page'], ['page=', 'INVALID_PARAMETER', 'page'], ['page=01', 'INVALID_PARAMETER', 'page'],
    ['page=1&page=2', 'INVALID_PARAMETER', 'page'], ['page_size=0', 'INVALID_PARAMETER', 'page_size'],
    ['page_size=x', 'INVALID_PARAMETER', 'page_size'], ['page_size=101', 'PAGE_SIZE_TOO_LARGE', 'page_size'],
    ['page_size=99999999999', 'INVALID_PARAMETER', 'page_size'],
  ]
  it.each(bad)('"%s" → 400 %s naming %s', (query, reason, param) => {
    expect(() => parsePaging(q(query))).toThrow(expect.objectContaining({ status: 400, reason, message: expect.stringContaining(param) }))
  })

  it('formats the backend paging; a missing one is an empty page', () => {
    expect(formatPaging({ page: 2, page_size: 5, page_count: 1, total: 6, total_pages: 2 }, { page: 2, page_size: 5 })).toEqual({ page: 2, page_size: 5, page_count: 1, total: 6, total_pages: 2 })
    expect(formatPaging(null, { page: 4, page_size: 10 })).toEqual({ page: 4, page_size: 10, page_count: 0, total: 0, total_pages: 0 })
  })
})

describe('query parameters of reads', () => {
  const q = (s: string) => new URLSearchParams(s)
  it('when a list gets an unknown parameter, then 400 naming the accepted ones', () => {
    expect(() => checkQuery(acceptsOf('objects.list'), q('order=title'), 'objects')).toThrow(expect.objectContaining({
      reason: 'UNKNOWN_QUERY_PARAMETER', message: expect.stringContaining('page, page_size, filter[object_type], filter[query], lang, access_token, filter[<field>]'),
    }))
  })
  it('when the poster gets width, then it is accepted; objects reject it', () => {
    expect(() => checkQuery(acceptsOf('poster'), q('width=10'))).not.toThrow()
    expect(() => checkQuery(acceptsOf('objects.get'), q('width=10'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER' }))
    expect(() => checkQuery(acceptsOf('poster'), q('lang=it'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER' }))
    expect(() => checkQuery(acceptsOf('objects.get'), q('lang=en_US'))).toThrow(expect.objectContaining({ reason: 'INVALID_PARAMETER', details: { parameter: 'lang' } }))
  })
  it('when media routes get parameters, then only their own are accepted', () => {
    expect(() => checkQuery(acceptsOf('media.thumbnail'), q('expires=1&sig=abc&access_token=t'))).not.toThrow()
    expect(() => checkQuery(acceptsOf('media.original'), q('access_token=t'))).not.toThrow()
    expect(() => checkQuery(acceptsOf('files.upload'), q('access_token=t'))).not.toThrow()
    expect(() => checkQuery(acceptsOf('media.original'), q('sig=x'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER' }))
    expect(() => checkQuery(acceptsOf('files.upload'), q('overwrite=1'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER' }))
    expect(() => checkQuery(acceptsOf('media.thumbnail'), q('width=10'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER', details: { parameter: 'width', accepted: ['expires', 'sig', 'access_token'] } }))
    expect(() => checkQuery(acceptsOf('media.thumbnail'), q('sig=a&sig=b'))).toThrow(expect.objectContaining({ reason: 'INVALID_PARAMETER' }))
  })
  it('when GET /me gets page, then it is unknown there', () => {
    expect(() => checkQuery(acceptsOf('me'), q('page=1'))).toThrow(expect.objectContaining({ reason: 'UNKNOWN_QUERY_PARAMETER' }))
  })
  it.each(['page=1&page=2', 'filter[query]=a&filter[query]=b', 'filter[object_type]=document&filter[object_type]=event', 'access_token=a&access_token=b'])(
    'when a read repeats a parameter (%s), then 400 naming it', (query) => {
      const name = query.split('=')[0]
      expect(() => checkQuery(acceptsOf('objects.list'), q(query))).toThrow(expect.objectContaining({
        status: 400, reason: 'INVALID_PARAMETER', details: { parameter: name },
      }))
    })
  it('when a list takes the query grammar, then the parsed query travels and the answer\'s shape is known', () => {
    const checked = checkQuery(acceptsOf('objects.list'), q('filter[title][contains]=a&filter[or][1][id]=3&sort=-title&fields=title&include=attach.poster&cursor=start&count=none'), 'objects', 0)
    expect(checked.list?.query).toEqual({
      conditions: [{ field: 'title', op: 'contains', values: ['a'] }, { field: 'id', op: 'eq', values: ['3'], group: 1 }],
      sort: [{ field: 'title', descending: true }], include: ['attach.poster'], include_limit: 5, cursor: 'start', count_none: true, drafts: false,
    })
    expect(checked.shape).toEqual({ fields: ['title'], cursor: true, uncounted: true, relativeTime: false, drafts: false })
    // an answer that depends on the time it was asked is not for the read cache
    expect(checkQuery(acceptsOf('objects.list'), q('filter[modified][gte]=now-1d'), 'objects', 0).shape?.relativeTime).toBe(true)
    // status=draft (decisions §16) travels to the objects service and marks the answer as the caller's own
    const drafts = checkQuery(acceptsOf('objects.list'), q('status=draft'), 'objects', 0)
    expect([drafts.list?.query.drafts, drafts.shape?.drafts]).toEqual([true, true])
    expect(() => checkQuery(acceptsOf('objects.list'), q('status=on'), 'objects', 0)).toThrow(expect.objectContaining({ status: 400, details: { parameter: 'status' } }))
    expect(() => checkQuery(acceptsOf('objects.list'), q('filter[id][between]=1'), 'objects')).toThrow(expect.objectContaining({
      reason: 'INVALID_PARAMETER', details: { parameter: 'filter[id][between]' },
    }))
  })
  it('when parents or ancestors get list-only parameters, then the first is refused by name', () => {
    expect(() => refuseListOnly(q('fields=title&sort=title'), 'parents')).toThrow(expect.objectContaining({ details: { parameter: 'sort' } }))
    expect(() => refuseListOnly(q('fields=title&include=poster&filter[query]=x'), 'parents')).not.toThrow()
  })
  it('when writes carry parameters, then they are not checked here', () => {
    expect(() => checkQuery(acceptsOf('objects.save'), q('anything=1'))).not.toThrow()
  })
  it('filters: known types split by comma; unknown types are 400', () => {
    expect(listFilter(q('filter[object_type]=document, event&filter[query]= hi '))).toEqual({ object_types: ['document', 'event'], query: 'hi' })
    expect(() => listFilter(q('filter[object_type]=spaceship'))).toThrow(expect.objectContaining({ reason: 'INVALID_PARAMETER' }))
    expect(() => listFilter(q('filter[object_type]='))).toThrow(expect.objectContaining({ reason: 'INVALID_PARAMETER' }))
  })
  it.each(['document,', ',document', 'document,,event', 'document, ', ','])('filters: an empty type in filter[object_type]=%s is 400 naming it', (types) => {
    expect(() => listFilter(q(`filter[object_type]=${encodeURIComponent(types)}`))).toThrow(expect.objectContaining({
      status: 400, reason: 'INVALID_PARAMETER', details: { parameter: 'filter[object_type]' },
    }))
  })
  it('when a page with include passes the budget, then 400 naming include_limit, with the page size and the configured budget', () => {
    const list = (query: string, budget?: number) => () => checkQuery(acceptsOf('objects.list'), q(query), 'objects', 0, budget)
    expect(list('include=seealso.seealso&include_limit=50&page_size=100')).toThrow(expect.objectContaining({
      status: 400, reason: 'INVALID_PARAMETER', details: { parameter: 'include_limit' },
    }))
    expect(list('include=seealso,attach&include_limit=25&page_size=100')).not.toThrow()
    expect(list('include=seealso,attach&include_limit=25&page_size=100', 4_999)).toThrow(expect.objectContaining({ details: { parameter: 'include_limit' } }))
    expect(list('include=seealso.seealso&include_limit=50&page_size=2')).not.toThrow()
    // the single read is a page of one whatever page_size says
    expect(() => checkQuery(acceptsOf('objects.get'), q('include=seealso.seealso&include_limit=50&page_size=100'), 'single', 0)).not.toThrow()
  })
})
