import { describe, expect, it } from 'vitest'
import { envelopeProblems, errorProblems, listedObjects, objectOf, pagingOf, parseJson, relationNames } from '../lib/envelope.ts'

const list = {
  api: 'objects', method: 'get', params: [], url: 'http://localhost:8080/objects',
  data: { objects: [{ id: 2, object_type: 'section' }, { id: '3', object_type: 'document' }, { id: 4, object_type: 'document' }] },
  paging: { page: 1, page_size: 20, page_count: 2, total: 2, total_pages: 1 },
}

describe('parseJson', () => {
  it.each([
    ['{"a":1}', { a: 1 }], ['', undefined], [null, undefined], [undefined, undefined], ['<html>', undefined],
  ])('%j → %j', (text, expected) => { expect(parseJson(text)).toEqual(expected) })
})

const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key))

describe('envelopeProblems', () => {
  it('accepts a list envelope', () => {
    expect(envelopeProblems(list, { api: 'objects', method: 'get', list: true })).toEqual([])
  })

  it.each<[string, unknown, object, string]>([
    ['not an object', 'x', {}, 'body is not a JSON object'],
    ['missing data', without(list, 'data'), {}, 'missing data'],
    ['missing url', { api: 'a', data: {}, method: 'get', params: [] }, {}, 'missing url'],
    ['relative url', { ...list, url: '/objects' }, {}, 'url is not absolute'],
    ['wrong api', list, { api: 'auth' }, 'api is objects, expected auth'],
    ['wrong method', list, { method: 'post' }, 'method is get, expected post'],
    ['list without paging', without(list, 'paging'), { list: true }, 'paging missing on a list'],
    ['list without objects', { ...list, data: {} }, { list: true }, 'data.objects is not an array'],
    ['error key in a success', { ...list, error: {} }, {}, 'success body carries an error key'],
  ])('reports %s', (_label, body, expected, problem) => {
    expect(envelopeProblems(body, expected)).toContain(problem)
  })
})

describe('errorProblems', () => {
  const body = { error: { status: 404, code: 'OBJECT_NOT_FOUND', message: 'no', details: null, more_info: null, url: 'http://x/objects/9' } }
  it('accepts the decisions §2 error body', () => {
    expect(errorProblems(body, 404, 'OBJECT_NOT_FOUND')).toEqual([])
  })
  it.each<[unknown, number, string | undefined, string]>([
    [body, 400, undefined, 'error.status is 404, expected 400'],
    [body, 404, 'ENDPOINT_NOT_FOUND', 'error.code is OBJECT_NOT_FOUND, expected ENDPOINT_NOT_FOUND'],
    [{ error: { ...body.error, code: 'notFound' } }, 404, undefined, 'error.code is not UPPER_SNAKE'],
    [{ ...body, data: {} }, 404, undefined, 'error body carries data'],
    [{ api: 'objects' }, 404, undefined, 'body has no error object'],
  ])('%j as %i/%s → %s', (b, status, code, problem) => {
    expect(errorProblems(b, status, code)).toContain(problem)
  })
})

describe('readers', () => {
  it('listedObjects keeps entries with integer ids only', () => {
    expect(listedObjects(list).map((o) => o.id)).toEqual([2, 4])
    expect(listedObjects({ data: {} })).toEqual([])
  })

  it('objectOf reads data.object', () => {
    expect(objectOf({ data: { object: { id: 7, object_type: 'document' } } })?.id).toBe(7)
    expect(objectOf({ data: { object: { id: 'x', object_type: 'document' } } })).toBeUndefined()
  })

  it('pagingOf needs every field as an integer', () => {
    expect(pagingOf(list)).toEqual(list.paging)
    expect(pagingOf({ paging: { ...list.paging, total: '2' } })).toBeUndefined()
  })

  it('relationNames lists relations with related objects, sorted', () => {
    const object = { id: 1, object_type: 'document', relations: {
      seealso: { count: 2, url: 'u' }, attach: { count: 1, url: 'u' }, poster: { count: 0, url: 'u' },
    } }
    expect(relationNames(object)).toEqual(['attach', 'seealso'])
    expect(relationNames(undefined)).toEqual([])
  })
})
