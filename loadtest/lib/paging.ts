/** Paging arithmetic of decisions §3 (page ≥ 1, page_size 1–100), for choosing and checking pages. */
import type { Paging } from './envelope.ts'

export const MAX_PAGE_SIZE = 100

export function totalPages (total: number, pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`page size must be a positive integer, got ${pageSize}`)
  return Math.ceil(Math.max(0, total) / pageSize)
}

/** Items on `page`: full pages, a remainder on the last one, zero past the end. */
export function expectedPageCount (total: number, pageSize: number, page: number): number {
  const before = (page - 1) * pageSize
  return Math.max(0, Math.min(pageSize, total - before))
}

/** A page number in 1..totalPages (1 when the list is empty), from a random number in [0, 1). */
export function randomPage (pages: number, random: () => number = Math.random): number {
  if (pages <= 1) return 1
  return 1 + Math.min(pages - 1, Math.floor(random() * pages))
}

/** Problems with a paging object against the page asked for. */
export function pagingProblems (paging: Paging | undefined, page: number, pageSize: number): string[] {
  if (paging === undefined) return ['paging missing or not integers']
  const problems: string[] = []
  if (paging.page !== page) problems.push(`page is ${paging.page}, expected ${page}`)
  if (paging.page_size !== pageSize) problems.push(`page_size is ${paging.page_size}, expected ${pageSize}`)
  if (paging.total_pages !== totalPages(paging.total, pageSize)) problems.push(`total_pages ${paging.total_pages} does not fit total ${paging.total}`)
  if (paging.page_count !== expectedPageCount(paging.total, pageSize, page)) problems.push(`page_count ${paging.page_count} does not fit total ${paging.total}`)
  return problems
}

export function pageQuery (page: number, pageSize: number): string {
  if (pageSize > MAX_PAGE_SIZE) throw new RangeError(`page size over ${MAX_PAGE_SIZE}`)
  return `page=${page}&page_size=${pageSize}`
}
