import { objectList } from './lists.js'
import type { PagedList } from './paging.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type { BodyOf, ContentObject, DataOf, TrashedObject, TrashListQuery } from './types.js'

export interface TrashApi {
  /** GET /trash: trashed objects the caller may write, each with `meta.trash`. */
  list (query?: TrashListQuery): PagedList<TrashedObject>
  /** POST /trash/{id}/restore: brings the object back (`parents` when its old parent is gone: 409 otherwise). */
  restore (id: number, options?: BodyOf<'postTrashObjectIdRestore'>['data']): Promise<ContentObject>
  /** DELETE /trash/{id}: purges the object for good. */
  purge (id: number): Promise<void>
}

export function createTrash (transport: Transport): TrashApi {
  return {
    list: (query = {}) => objectList<TrashedObject>(transport, '/trash', query),
    restore: async (id, options = {}) => (await transport.send<{ data: DataOf<'postTrashObjectIdRestore'> }>({
      method: 'POST', path: `/trash${pathOf(id, 'restore')}`, json: { data: options },
    })).data.object,
    purge: async (id) => { await transport.send({ method: 'DELETE', path: `/trash${pathOf(id)}` }) },
  }
}
