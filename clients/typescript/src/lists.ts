import { ApiError } from './errors.js'
import { type Page, type PagedList, pagedList, type WalkQuery } from './paging.js'
import type { QueryInput } from './query.js'
import type { Transport } from './transport.js'
import type { Paging } from './types.js'

interface ListAnswer<T> { data: { objects: T[] }, paging: Paging, url: string }

/** A paginated `data.objects` list at `path`. */
export function objectList<T> (transport: Transport, path: string, query: QueryInput = {}): PagedList<T> {
  return pagedList<T>(query as WalkQuery, async (at): Promise<Page<T>> => {
    const answer = await transport.send<ListAnswer<T>>({ method: 'GET', path, query: at })
    if (!Array.isArray(answer.data?.objects) || typeof answer.paging !== 'object' || answer.paging === null) {
      throw new ApiError({ status: 200, code: 'UNEXPECTED_RESPONSE', message: 'a list answer without data.objects and paging', url: transport.url(path) })
    }
    return { items: answer.data.objects, paging: answer.paging, url: answer.url }
  })
}
