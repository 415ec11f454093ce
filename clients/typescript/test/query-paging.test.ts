import { describe, expect, it } from 'vitest'
import { nextPosition, type Page } from '../src/paging.js'
import { pathOf, queryString } from '../src/query.js'

describe('queryString', () => {
  it('writes the filter grammar of decisions §15: eq, operators, lists, OR groups', () => {
    const qs = queryString({
      page_size: 5,
      filter: { object_type: ['document', 'event'], title: { contains: 'news' }, id: { between: [3, 9] }, or: [{ title: { starts_with: 'a' } }, { nickname: 'b' }] },
      sort: '-created',
      cursor: 'start',
      skipped: undefined,
    })
    expect([...new URLSearchParams(qs.slice(1))]).toEqual([
      ['page_size', '5'],
      ['filter[object_type]', 'document,event'],
      ['filter[title][contains]', 'news'],
      ['filter[id][between]', '3,9'],
      ['filter[or][0][title][starts_with]', 'a'],
      ['filter[or][1][nickname]', 'b'],
      ['sort', '-created'],
      ['cursor', 'start'],
    ])
    expect(queryString({})).toBe('')
    expect(queryString(undefined)).toBe('')
    expect(queryString({ filter: { query: 'a&b=c' } })).toBe('?filter%5Bquery%5D=a%26b%3Dc')
  })

  it('percent-encodes each path segment', () => {
    expect(pathOf('objects', 'a/b c', 7)).toBe('/objects/a%2Fb%20c/7')
  })
})

const page = (paging: Page<unknown>['paging'], items = paging.page_count): Page<unknown> =>
  ({ items: Array.from({ length: items }, (_, i) => i), paging, url: '' })

describe('nextPosition', () => {
  it('walks page numbers up to total_pages', () => {
    expect(nextPosition({}, page({ page: 1, page_size: 2, page_count: 2, total: 5, total_pages: 3 }))).toEqual({ page: 2 })
    expect(nextPosition({ page: 3 }, page({ page: 3, page_size: 2, page_count: 1, total: 5, total_pages: 3 }))).toBeUndefined()
    expect(nextPosition({}, page({ page: 1, page_size: 20, page_count: 0, total: 0, total_pages: 0 }))).toBeUndefined()
  })

  it('without a count (count=none), stops at the first short page', () => {
    expect(nextPosition({ count: 'none' }, page({ page: 1, page_size: 2, page_count: 2 }))).toEqual({ page: 2 })
    expect(nextPosition({ count: 'none' }, page({ page: 2, page_size: 2, page_count: 1 }))).toBeUndefined()
  })

  it('follows next_cursor until it is null', () => {
    expect(nextPosition({ cursor: true }, page({ page_size: 2, page_count: 2, next_cursor: 'abc' }))).toEqual({ cursor: 'abc' })
    expect(nextPosition({ cursor: 'abc' }, page({ page_size: 2, page_count: 1, next_cursor: null }))).toBeUndefined()
  })

  it('counts pages itself: an answer that repeats its page number or its cursor cannot hold the walk in place', () => {
    expect(nextPosition({ page: 2 }, page({ page: 1, page_size: 2, page_count: 2, total: 6, total_pages: 3 }))).toEqual({ page: 3 })
    expect(nextPosition({ cursor: 'abc' }, page({ page_size: 2, page_count: 2, next_cursor: 'abc' }))).toBeUndefined()
  })
})
