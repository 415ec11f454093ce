import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@content/api-schema'
import { present } from '@content/platform'
import { HttpError } from '../errors.js'
import type { Paging } from '../envelope.js'
const POSITIVE = /^[1-9][0-9]{0,8}$/

export interface PageRequest { page: number, page_size: number }

/** `page` (default 1) and `page_size` (default 20, max 100); anything else is a 400 naming the parameter. */
export function parsePaging (query: URLSearchParams): PageRequest {
  const value = (name: string, fallback: number) => {
    const all = query.getAll(name)
    if (all.length === 0) return fallback
    const raw = present(all[0], `the ${name} parameter`)
    if (all.length > 1 || !POSITIVE.test(raw)) {
      throw new HttpError('INVALID_PARAMETER', `${name} must be a positive integer`, { parameter: name })
    }
    return Number(raw)
  }
  const page = value('page', 1)
  const pageSize = value('page_size', DEFAULT_PAGE_SIZE)
  if (pageSize > MAX_PAGE_SIZE) {
    throw new HttpError('PAGE_SIZE_TOO_LARGE', `page_size must not exceed ${MAX_PAGE_SIZE}`, { parameter: 'page_size', max: MAX_PAGE_SIZE })
  }
  return { page, page_size: pageSize }
}

interface PagingLike { page: number, page_size: number, page_count: number, total: number, total_pages: number, next_cursor?: string | null }

/** How a list is paged (decisions §15): by cursor, and whether totals are counted. */
export interface PagingMode { cursor: boolean, uncounted: boolean }

/**
 * The backend's paging, explicitly; a missing one is an empty page. By cursor: page_size, page_count,
 * next_cursor (null on the last page) and total; count=none leaves the totals out.
 */
export function formatPaging (p: PagingLike | null | undefined, requested: PageRequest, mode?: PagingMode): Paging {
  const q = p ?? { page: requested.page, page_size: requested.page_size, page_count: 0, total: 0, total_pages: 0 }
  if (mode === undefined || (!mode.cursor && !mode.uncounted)) {
    return { page: q.page, page_size: q.page_size, page_count: q.page_count, total: q.total, total_pages: q.total_pages }
  }
  if (mode.cursor) {
    const cursor = { page_size: q.page_size, page_count: q.page_count, next_cursor: q.next_cursor || null }
    return mode.uncounted ? cursor : { ...cursor, total: q.total }
  }
  return { page: q.page, page_size: q.page_size, page_count: q.page_count }
}
