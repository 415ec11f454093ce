import { Metadata, status } from '@grpc/grpc-js'
import { DETAILS_KEY, REASON_KEY } from '@content/platform'
import { describe, expect, it } from 'vitest'
import { echoParams, envelope, errorBody, requestInfo } from '../../src/http/envelope.js'
import { HttpError, describeError } from '../../src/http/errors.js'

describe('envelope', () => {
  it('when there is no query, then params is [] and url has no query', () => {
    const info = requestInfo('GET', 'https://api.example', '/objects/5')
    expect(envelope(info, 'objects', { a: 1 })).toEqual({ api: 'objects', data: { a: 1 }, method: 'get', params: [], url: 'https://api.example/objects/5' })
  })

  it('when there is a query, then params echoes raw strings without access_token and url drops the query', () => {
    const info = requestInfo('GET', 'http://h', '/objects?page=2&filter%5Bobject_type%5D=document,event&access_token=secret')
    const body = envelope(info, 'objects', { objects: [] }, { page: 2, page_size: 20, page_count: 0, total: 0, total_pages: 0 })
    expect(body.params).toEqual({ page: '2', 'filter[object_type]': 'document,event' })
    expect(body.url).toBe('http://h/objects')
    expect(body.paging).toEqual({ page: 2, page_size: 20, page_count: 0, total: 0, total_pages: 0 })
    expect(JSON.stringify(body)).not.toContain('secret')
  })

  it('when only access_token is given, then params is []', () => {
    expect(echoParams(new URLSearchParams('access_token=x'))).toEqual([])
  })

  it('when paging is absent, then the key is absent', () => {
    expect('paging' in envelope(requestInfo('GET', 'http://h', '/'), '', {})).toBe(false)
  })
})

describe('error bodies', () => {
  it('has exactly the decisions §2 shape', () => {
    expect(errorBody('http://h/x', 404, 'OBJECT_NOT_FOUND', 'gone')).toEqual({
      error: { status: 404, code: 'OBJECT_NOT_FOUND', message: 'gone', details: null, more_info: null, url: 'http://h/x' },
    })
  })

  it('links the code on the errors page when the page is known', () => {
    expect(errorBody('http://h/x', 404, 'OBJECT_NOT_FOUND', 'gone', null, 'http://h/v1/docs/errors').error.more_info)
      .toBe('http://h/v1/docs/errors#OBJECT_NOT_FOUND')
  })

  /** What a backend's error looks like on the wire: its status, and its reason and details in the trailers (any reason, known or not). */
  const grpc = (code: keyof typeof status, reason: string, message: string, details: Record<string, unknown> | null = null) => {
    const metadata = new Metadata()
    metadata.set(REASON_KEY, reason)
    if (details !== null) metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(details)))
    return Object.assign(new Error(message), { code: status[code], details: message, metadata })
  }
  // grpc-js Metadata without a reason: what a transport failure looks like
  const plainGrpc = (code: number, details: string) => Object.assign(new Error(details), { code, details, metadata: new Metadata() })

  const rows: Array<[string, unknown, { status: number, reason: string, message?: string, details?: unknown }]> = [
    ['gateway error', new HttpError('METHOD_NOT_ALLOWED', 'no', null, { allow: 'GET' }), { status: 405, reason: 'METHOD_NOT_ALLOWED', message: 'no' }],
    ['domain NOT_FOUND', grpc('NOT_FOUND', 'OBJECT_NOT_FOUND', 'object 9 not found'), { status: 404, reason: 'OBJECT_NOT_FOUND', message: 'object 9 not found' }],
    ['domain UNAUTHENTICATED', grpc('UNAUTHENTICATED', 'OBJECT_PROTECTED', 'protected'), { status: 401, reason: 'OBJECT_PROTECTED' }],
    ['domain PERMISSION_DENIED', grpc('PERMISSION_DENIED', 'PERMISSION_DENIED', 'no'), { status: 403, reason: 'PERMISSION_DENIED' }],
    ['domain validation with details', grpc('INVALID_ARGUMENT', 'VALIDATION_FAILED', 'bad', { title: 'too long' }), { status: 400, reason: 'VALIDATION_FAILED', details: { title: 'too long' } }],
    ['domain ALREADY_EXISTS', grpc('ALREADY_EXISTS', 'NICKNAME_TAKEN', 'taken'), { status: 409, reason: 'NICKNAME_TAKEN' }],
    ['backend UNIMPLEMENTED', grpc('UNIMPLEMENTED', 'NOT_IMPLEMENTED', 'SaveObject is not implemented yet'), { status: 501, reason: 'NOT_IMPLEMENTED', message: 'not implemented' }],
    ['backend INTERNAL with text', grpc('INTERNAL', 'DB_DOWN', 'SQLITE_BUSY at /data/objects.sqlite'), { status: 500, reason: 'DB_DOWN', message: 'internal error', details: null }],
    ['bare UNAVAILABLE', plainGrpc(14, 'connect ECONNREFUSED 127.0.0.1:50051'), { status: 503, reason: 'SERVICE_UNAVAILABLE', message: 'a backend service is unavailable' }],
    ['bare UNIMPLEMENTED', plainGrpc(12, 'The server does not implement the method'), { status: 501, reason: 'NOT_IMPLEMENTED' }],
    ['bare DEADLINE_EXCEEDED', plainGrpc(4, 'Deadline exceeded'), { status: 504, reason: 'BACKEND_TIMEOUT' }],
    ['programming error', new TypeError('cannot read x of undefined'), { status: 500, reason: 'INTERNAL_ERROR', message: 'internal error' }],
    ['fastify body too large', Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }), { status: 413, reason: 'PAYLOAD_TOO_LARGE' }],
    ['fastify media type', Object.assign(new Error('Unsupported'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }), { status: 415, reason: 'UNSUPPORTED_MEDIA_TYPE' }],
  ]
  it.each(rows)('%s', (_name, err, want) => {
    const d = describeError(err)
    expect(d).toMatchObject({ status: want.status, reason: want.reason })
    if (want.message !== undefined) expect(d.message).toBe(want.message)
    if (want.details !== undefined) expect(d.details).toEqual(want.details)
  })

  it('when a 5xx carries internal text, then neither message nor details leak it', () => {
    const d = describeError(grpc('INTERNAL', 'DB_DOWN', 'SQLITE_BUSY at /data/objects.sqlite', { path: '/data' }))
    expect(JSON.stringify(d)).not.toMatch(/SQLITE|\/data/)
  })

  it('when the poster service is busy, then 503 carries Retry-After from details.retry_after, but no details', () => {
    const d = describeError(grpc('UNAVAILABLE', 'THUMBNAIL_BUSY', 'rendering is saturated', { retry_after: 2.5 }))
    expect(d).toMatchObject({ status: 503, reason: 'THUMBNAIL_BUSY', details: null, headers: { 'retry-after': '3' } })
    expect(describeError(plainGrpc(14, 'connect ECONNREFUSED')).headers).toEqual({})
    expect(describeError(grpc('UNAVAILABLE', 'UPLOAD_BUSY', 'busy', { retry_after: 'soon' })).headers).toEqual({})
  })

  it('when a range is not satisfiable, then 416 carries Content-Range: bytes */total', () => {
    const d = describeError(grpc('INVALID_ARGUMENT', 'RANGE_NOT_SATISFIABLE', 'the range is outside the file', { total_size: 300000 }))
    expect(d).toMatchObject({ status: 416, reason: 'RANGE_NOT_SATISFIABLE', details: { total_size: 300000 }, headers: { 'content-range': 'bytes */300000' } })
    expect(describeError(grpc('INVALID_ARGUMENT', 'RANGE_NOT_SATISFIABLE', 'x', { total_size: '1\r\nx: y' })).headers).toEqual({})
  })

  it.each([
    ['UPLOAD_TYPE_INVALID', 415], ['UPLOAD_MAX_FILESIZE_EXCEEDED', 413], ['INVALID_FILE_NAME', 400], ['UPLOAD_EMPTY', 400],
  ])('when an upload is refused with %s, then %i with the reason', (reason, status) => {
    expect(describeError(grpc('INVALID_ARGUMENT', reason, 'no'))).toMatchObject({ status, reason, message: 'no' })
  })

  it('when login attempts are limited, then 429 carries Retry-After from details.retry_after', () => {
    const d = describeError(grpc('RESOURCE_EXHAUSTED', 'TOO_MANY_REQUESTS', 'slow down', { retry_after: 41.2 }))
    expect(d).toMatchObject({ status: 429, reason: 'TOO_MANY_REQUESTS', headers: { 'retry-after': '42' } })
  })
})
