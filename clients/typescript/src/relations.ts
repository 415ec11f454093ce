import { objectList } from './lists.js'
import { type WriteOptions, writeHeaders } from './objects.js'
import type { PagedList } from './paging.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type { ObjectRef, RelatedListQuery, RelatedObject, RelationChange, RelationInfo, RelationItem, RelationSummary, SavedRelation } from './types.js'

type Envelope<T> = { data: T }

export interface RelationsApi {
  /** GET /objects/{id}/relations: each relation name the object has, with count and URL. */
  summary (ref: ObjectRef): Promise<RelationSummary>
  /** GET /objects/{id}/relations/{name}: the related objects, each with `meta.relation`. */
  list (ref: ObjectRef, name: string, query?: RelatedListQuery): PagedList<RelatedObject>
  /** GET /objects/{id}/relations/{name}/{related}: priority and params of one relation. */
  get (ref: ObjectRef, name: string, relatedId: number): Promise<RelationInfo>
  /** POST /objects/{id}/relations/{name}: relates objects (the inverse relation comes with it). */
  add (ref: ObjectRef, name: string, items: RelationItem | readonly RelationItem[], options?: WriteOptions): Promise<SavedRelation[]>
  /** PUT /objects/{id}/relations/{name}/{related}: replaces priority and params. */
  update (ref: ObjectRef, name: string, relatedId: number, change: RelationChange): Promise<RelationInfo>
  /** DELETE /objects/{id}/relations/{name}/{related}: removes the relation both ways. */
  remove (ref: ObjectRef, name: string, relatedId: number): Promise<void>
}

export function createRelations (transport: Transport): RelationsApi {
  const at = (ref: ObjectRef, ...rest: (string | number)[]) => `/objects${pathOf(ref, 'relations', ...rest)}`
  return {
    summary: async (ref) => (await transport.send<Envelope<RelationSummary>>({ method: 'GET', path: at(ref) })).data,
    list: (ref, name, query = {}) => objectList<RelatedObject>(transport, at(ref, name), query),
    get: async (ref, name, relatedId) => (await transport.send<Envelope<RelationInfo>>({ method: 'GET', path: at(ref, name, relatedId) })).data,
    add: async (ref, name, items, options = {}) => (await transport.send<Envelope<SavedRelation[]>>({
      method: 'POST', path: at(ref, name), json: { data: items }, headers: writeHeaders(options), signal: options.signal,
    })).data,
    update: async (ref, name, relatedId, change) =>
      (await transport.send<Envelope<RelationInfo>>({ method: 'PUT', path: at(ref, name, relatedId), json: { data: change } })).data,
    remove: async (ref, name, relatedId) => { await transport.send({ method: 'DELETE', path: at(ref, name, relatedId) }) },
  }
}
