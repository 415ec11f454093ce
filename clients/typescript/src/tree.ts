import { objectList } from './lists.js'
import { type WriteOptions, writeHeaders } from './objects.js'
import type { PagedList } from './paging.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type { ChildItem, ContentObject, DataOf, ObjectRef, SavedChild, TreeListQuery } from './types.js'

type Envelope<T> = { data: T }
/** The tree lists of spec 4.10 under `/objects/{id}/…`. */
export type TreeList = 'children' | 'contents' | 'sections' | 'descendants' | 'siblings'

export interface TreeApi {
  /** Direct children (sections and contents). */
  children (ref: ObjectRef, query?: TreeListQuery): PagedList<ContentObject>
  /** Direct children that are not sections. */
  contents (ref: ObjectRef, query?: TreeListQuery): PagedList<ContentObject>
  /** Direct children that are sections. */
  sections (ref: ObjectRef, query?: TreeListQuery): PagedList<ContentObject>
  /** Every object below, at any depth. */
  descendants (ref: ObjectRef, query?: TreeListQuery): PagedList<ContentObject>
  /** The other children of the object's first parent. */
  siblings (ref: ObjectRef, query?: TreeListQuery): PagedList<ContentObject>
  /** POST /objects/{id}/children: adds or moves children; answers what was saved. */
  addChildren (ref: ObjectRef, items: ChildItem | readonly ChildItem[], options?: WriteOptions): Promise<SavedChild[]>
  /** GET /objects/{id}/children/{child}: the child's priority. */
  priority (ref: ObjectRef, childId: number): Promise<number>
  /** PUT /objects/{id}/children/{child}: changes the child's priority. */
  setPriority (ref: ObjectRef, childId: number, priority: number): Promise<number>
  /** DELETE /objects/{id}/children/{child}: takes the child out of this parent. */
  removeChild (ref: ObjectRef, childId: number): Promise<void>
}

export function createTree (transport: Transport): TreeApi {
  const list = (name: TreeList) => (ref: ObjectRef, query: TreeListQuery = {}) =>
    objectList<ContentObject>(transport, `/objects${pathOf(ref, name)}`, query)
  return {
    children: list('children'),
    contents: list('contents'),
    sections: list('sections'),
    descendants: list('descendants'),
    siblings: list('siblings'),
    addChildren: async (ref, items, options = {}) => (await transport.send<Envelope<SavedChild[]>>({
      method: 'POST', path: `/objects${pathOf(ref, 'children')}`, json: { data: items }, headers: writeHeaders(options), signal: options.signal,
    })).data,
    priority: async (ref, childId) =>
      (await transport.send<Envelope<DataOf<'getObjectsObjectIdChildrenChildId'>>>({ method: 'GET', path: `/objects${pathOf(ref, 'children', childId)}` })).data.priority,
    setPriority: async (ref, childId, priority) => (await transport.send<Envelope<DataOf<'putObjectsObjectIdChildrenChildId'>>>({
      method: 'PUT', path: `/objects${pathOf(ref, 'children', childId)}`, json: { data: { priority } },
    })).data.priority,
    removeChild: async (ref, childId) => { await transport.send({ method: 'DELETE', path: `/objects${pathOf(ref, 'children', childId)}` }) },
  }
}
