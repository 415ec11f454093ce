import { describe, expect, it } from 'vitest'
import { pageOf, pageWindow, pagingOf } from '../../src/core/paging.js'

describe('pageWindow', () => {
  it.each([
    [undefined, { page: 1, page_size: 20, offset: 0, limit: 20 }],
    [{ page: 0, page_size: 0 }, { page: 1, page_size: 20, offset: 0, limit: 20 }],
    [{ page: 3, page_size: 10 }, { page: 3, page_size: 10, offset: 20, limit: 10 }],
    [{ page: -4, page_size: 500 }, { page: 1, page_size: 100, offset: 0, limit: 100 }],
    [{ page: 2, page_size: -1 }, { page: 2, page_size: 1, offset: 1, limit: 1 }],
  ])('when the request is %j, then the window is %j', (request, expected) => {
    expect(pageWindow(request)).toEqual(expected)
  })
})

describe('pagingOf', () => {
  it.each([
    [1, 20, 0, 0, { page: 1, page_size: 20, page_count: 0, total: 0, total_pages: 0 }],
    [1, 20, 45, 20, { page: 1, page_size: 20, page_count: 20, total: 45, total_pages: 3 }],
    [3, 20, 45, 5, { page: 3, page_size: 20, page_count: 5, total: 45, total_pages: 3 }],
    [9, 20, 45, 0, { page: 9, page_size: 20, page_count: 0, total: 45, total_pages: 3 }],
    [1, 5, 5, 5, { page: 1, page_size: 5, page_count: 5, total: 5, total_pages: 1 }],
  ])('when page %i of size %i over %i items shows %i, then paging is %j', (page, size, total, count, expected) => {
    expect(pagingOf(pageWindow({ page, page_size: size }), total, count)).toEqual(expected)
  })

  it('when a short list is paged in memory, then slices follow the window', () => {
    expect(pageOf([1, 2, 3, 4, 5], pageWindow({ page: 2, page_size: 2 }))).toEqual([3, 4])
    expect(pageOf([1, 2, 3], pageWindow({ page: 5, page_size: 2 }))).toEqual([])
  })
})
