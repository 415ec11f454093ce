import { dataList } from './lists.js'
import type { PagedList } from './paging.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type { ContentObject, DataOf, QueryOf } from './types.js'

/** One revision: who, when, which own fields changed, and every own field after the change (decisions §16). */
export type Revision = DataOf<'getObjectsObjectIdRevisionsRevision'>['revision']
export type RevisionListQuery = Omit<QueryOf<'getObjectsObjectIdRevisions'>, 'page'> & { page?: number }

export interface RevisionsApi {
  /** GET /objects/{id}/revisions: newest first, paged (read and write rights on the object). */
  list (ref: number | string, query?: RevisionListQuery): PagedList<Revision>
  /** GET /objects/{id}/revisions/{revision}. */
  get (ref: number | string, revision: number): Promise<Revision>
  /** POST /objects/{id}/revisions/{revision}/restore: writes that revision's own fields back, as an update (a new revision). */
  restore (ref: number | string, revision: number): Promise<ContentObject>
}

export function createRevisions (transport: Transport): RevisionsApi {
  return {
    list: (ref, query = {}) => dataList<Revision>(transport, `/objects${pathOf(ref, 'revisions')}`, 'revisions', query),
    get: async (ref, revision) => (await transport.send<{ data: DataOf<'getObjectsObjectIdRevisionsRevision'> }>({
      method: 'GET', path: `/objects${pathOf(ref, 'revisions', String(revision))}`,
    })).data.revision,
    restore: async (ref, revision) => (await transport.send<{ data: DataOf<'postObjectsObjectIdRevisionsRevisionRestore'> }>({
      method: 'POST', path: `/objects${pathOf(ref, 'revisions', String(revision), 'restore')}`,
    })).data.object,
  }
}
