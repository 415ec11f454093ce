import { ApiError } from './errors.js'
import { type Page, type PagedList, pagedList, type WalkQuery } from './paging.js'
import type { QueryInput } from './query.js'
import type { Transport } from './transport.js'
import type { Paging } from './types.js'

interface ListAnswer { data: Record<string, unknown>, paging: Paging, url: string }

/** A paginated list at `path` whose items are `data[key]` (`objects` for every object list, `revisions` …). */
export function dataList<T> (transport: Transport, path: string, key: string, query: QueryInput = {}): PagedList<T> {
  return pagedList<T>(query as WalkQuery, async (at): Promise<Page<T>> => {
    const answer = await transport.send<ListAnswer>({ method: 'GET', path, query: at })
    const items = answer.data?.[key]
    if (!Array.isArray(items) || typeof answer.paging !== 'object' || answer.paging === null) {
      throw new ApiError({ status: 200, code: 'UNEXPECTED_RESPONSE', message: `a list answer without data.${key} and paging`, url: transport.url(path) })
    }
    return { items: items as T[], paging: answer.paging, url: answer.url }
  })
}

/** A paginated `data.objects` list at `path`. */
export const objectList = <T> (transport: Transport, path: string, query: QueryInput = {}): PagedList<T> => dataList<T>(transport, path, 'objects', query)
