import type { QueryInput } from './query.js'
import type { Paging } from './types.js'

/** One page of a list: its items, the `paging` object and the URL that answered. */
export interface Page<T> {
  items: T[]
  paging: Paging
  url: string
}

/**
 * A paginated list, walked lazily: `for await (const item of list)` yields every item, fetching page
 * after page (by page number, or by cursor when the query has `cursor`); `pages()` yields whole pages.
 */
export interface PagedList<T> extends AsyncIterable<T> {
  pages (): AsyncGenerator<Page<T>, void, undefined>
  /** The first page only (the query's `page`, or the cursor's page). */
  first (): Promise<Page<T>>
  /** Every item of every page, in order. */
  all (): Promise<T[]>
}

/** Query of a list call: page paging or cursor paging (`true` = from the start). */
export type WalkQuery = QueryInput & { page?: number, cursor?: true | string }

/**
 * Where the walk goes next after the page fetched with `at`; undefined ends it. The position is the
 * client's own count, so an answer that repeats a page number or a cursor cannot hold the walk in place.
 * Pure, so it is tested on its own.
 */
export function nextPosition (at: WalkQuery, page: Page<unknown>): Partial<Record<'page' | 'cursor', number | string>> | undefined {
  if (at.cursor !== undefined) {
    const next = page.paging.next_cursor
    return typeof next === 'string' && next !== '' && next !== at.cursor ? { cursor: next } : undefined
  }
  const { paging } = page
  const current = at.page ?? 1
  if (page.items.length === 0) return undefined
  if (paging.total_pages !== undefined ? current >= paging.total_pages : paging.page_count < paging.page_size) return undefined
  return { page: current + 1 }
}

export function pagedList<T> (query: WalkQuery, fetchPage: (query: QueryInput) => Promise<Page<T>>): PagedList<T> {
  const start: QueryInput = query.cursor === true ? { ...query, cursor: 'start' } : query
  async function * pages (): AsyncGenerator<Page<T>, void, undefined> {
    let at: QueryInput = start
    for (;;) {
      const page = await fetchPage(at)
      yield page
      const next = nextPosition(at as WalkQuery, page)
      if (!next) return
      at = { ...at, ...next }
    }
  }
  return {
    pages,
    first: () => fetchPage(start),
    async all () {
      const out: T[] = []
      for await (const page of pages()) out.push(...page.items)
      return out
    },
    async * [Symbol.asyncIterator] () {
      for await (const page of pages()) yield * page.items
    },
  }
}
