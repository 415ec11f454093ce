import { describe, expect, it } from 'vitest'
import { expectedPageCount, pageQuery, pagingProblems, randomPage, totalPages } from '../lib/paging.ts'

describe('totalPages / expectedPageCount', () => {
  it.each([
    [0, 20, 0], [1, 20, 1], [20, 20, 1], [21, 20, 2], [100, 100, 1], [101, 100, 2],
  ])('total %i, size %i → %i pages', (total, size, pages) => { expect(totalPages(total, size)).toBe(pages) })

  it('refuses a page size below 1', () => { expect(() => totalPages(5, 0)).toThrow(RangeError) })

  it.each([
    [45, 20, 1, 20], [45, 20, 2, 20], [45, 20, 3, 5], [45, 20, 4, 0], [0, 20, 1, 0],
  ])('total %i, size %i, page %i → %i items', (total, size, page, count) => {
    expect(expectedPageCount(total, size, page)).toBe(count)
  })

  it('concatenating every page counts each item once', () => {
    for (const [total, size] of [[0, 7], [1, 7], [49, 7], [50, 7], [1000, 100]] as const) {
      let sum = 0
      for (let page = 1; page <= totalPages(total, size); page++) sum += expectedPageCount(total, size, page)
      expect(sum).toBe(total)
    }
  })
})

describe('randomPage', () => {
  it.each([
    [0, 0.9, 1], [1, 0.9, 1], [5, 0, 1], [5, 0.5, 3], [5, 0.999999, 5],
  ])('%i pages, random %f → page %i', (pages, r, page) => { expect(randomPage(pages, () => r)).toBe(page) })
})

describe('pagingProblems', () => {
  const ok = { page: 3, page_size: 20, page_count: 5, total: 45, total_pages: 3 }
  it('accepts consistent paging', () => { expect(pagingProblems(ok, 3, 20)).toEqual([]) })
  it('accepts a page past the end as empty', () => {
    expect(pagingProblems({ ...ok, page: 9, page_count: 0 }, 9, 20)).toEqual([])
  })
  it.each<[object, string]>([
    [{ ...ok, page: 2 }, 'page is 2, expected 3'],
    [{ ...ok, page_size: 10 }, 'page_size is 10, expected 20'],
    [{ ...ok, total_pages: 2 }, 'total_pages 2 does not fit total 45'],
    [{ ...ok, page_count: 20 }, 'page_count 20 does not fit total 45'],
  ])('%j → %s', (paging, problem) => {
    expect(pagingProblems(paging as never, 3, 20)).toContain(problem)
  })
  it('reports missing paging', () => { expect(pagingProblems(undefined, 1, 20)).toEqual(['paging missing or not integers']) })
})

describe('pageQuery', () => {
  it('builds the query', () => { expect(pageQuery(2, 50)).toBe('page=2&page_size=50') })
  it('refuses sizes the API rejects', () => { expect(() => pageQuery(1, 101)).toThrow(/over 100/) })
})
