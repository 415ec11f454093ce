import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@content/api-schema'

export interface PageWindow {
  page: number
  page_size: number
  offset: number
  limit: number
}

export interface Paging {
  page: number
  page_size: number
  page_count: number
  total: number
  total_pages: number
  /** cursor paging (decisions §15): the next page's cursor, '' on the last page */
  next_cursor?: string
  /** count=none: total and total_pages were not counted */
  uncounted?: boolean
}

/** The gateway validates; this clamps anyway so a bad request can never ask for a huge page. */
export function pageWindow (request: { page?: number, page_size?: number } | null | undefined): PageWindow {
  const page = clampInt(request?.page, 1, 1, 1_000_000_000)
  const size = clampInt(request?.page_size, DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)
  return { page, page_size: size, offset: (page - 1) * size, limit: size }
}

function clampInt (value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value) || value === 0) return fallback
  return Math.min(max, Math.max(min, Math.trunc(value)))
}

export function pagingOf (window: PageWindow, total: number, pageCount: number): Paging {
  return {
    page: window.page,
    page_size: window.page_size,
    page_count: pageCount,
    total,
    total_pages: Math.ceil(total / window.page_size),
  }
}

/** Pages an in-memory list (short lists: parents, ancestors). */
export function pageOf<T> (items: T[], window: PageWindow): T[] {
  return items.slice(window.offset, window.offset + window.limit)
}
