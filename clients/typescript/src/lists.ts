import { type Page, type PagedList, pagedList, type WalkQuery } from './paging.js'
import type { QueryInput } from './query.js'
import type { Transport } from './transport.js'
import type { Paging } from './types.js'

interface ListAnswer<T> { data: { objects: T[] }, paging: Paging, url: string }

/** A paginated `data.objects` list at `path`. */
export function objectList<T> (transport: Transport, path: string, query: QueryInput = {}): PagedList<T> {
  return pagedList<T>(query as WalkQuery, async (at): Promise<Page<T>> => {
    const answer = await transport.send<ListAnswer<T>>({ method: 'GET', path, query: at })
    return { items: answer.data.objects, paging: answer.paging, url: answer.url }
  })
}
