import { objectList } from './lists.js'
import type { PagedList } from './paging.js'
import { pathOf } from './query.js'
import type { Transport } from './transport.js'
import type {
  ContentObject, DataOf, ObjectCreate, ObjectListQuery, ObjectReadQuery, ObjectRef, ObjectUpdate, Poster, PosterQuery,
} from './types.js'

type Envelope<T> = { data: T }
type ObjectAnswer = Envelope<DataOf<'getObjectsObjectId'>>

/** Options of a write: an Idempotency-Key makes a retried write safe (the server answers the first result again). */
export interface WriteOptions { idempotencyKey?: string, signal?: AbortSignal }

export const writeHeaders = (options: WriteOptions) => options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined

export interface ObjectsApi {
  /** GET /objects/{id}: one object by id or nickname. */
  get (ref: ObjectRef, query?: ObjectReadQuery): Promise<ContentObject>
  /** GET /objects: the publication's descendants, page by page or by cursor. */
  list (query?: ObjectListQuery): PagedList<ContentObject>
  /** POST /objects without an id: creates an object (under `parents` and/or with `relations`). */
  create (fields: ObjectCreate, options?: WriteOptions): Promise<ContentObject>
  /** POST /objects with the id: changes the fields given. */
  update (id: number, fields: ObjectUpdate, options?: WriteOptions): Promise<ContentObject>
  /** DELETE /objects/{id}: moves the object to the trash. */
  delete (ref: ObjectRef): Promise<void>
  /** GET /poster/{id}: the thumbnail that represents the object. */
  poster (ref: ObjectRef, query?: PosterQuery): Promise<Poster>
}

export function createObjects (transport: Transport): ObjectsApi {
  const write = async (data: Record<string, unknown>, options: WriteOptions = {}) =>
    (await transport.send<ObjectAnswer>({ method: 'POST', path: '/objects', json: { data }, headers: writeHeaders(options), signal: options.signal })).data.object
  return {
    get: async (ref, query) => (await transport.send<ObjectAnswer>({ method: 'GET', path: `/objects${pathOf(ref)}`, query })).data.object,
    list: (query = {}) => objectList<ContentObject>(transport, '/objects', query),
    create: (fields, options) => write(fields, options),
    update: (id, fields, options) => write({ ...fields, id }, options),
    delete: async (ref) => { await transport.send({ method: 'DELETE', path: `/objects${pathOf(ref)}` }) },
    poster: async (ref, query) => (await transport.send<Envelope<Poster>>({ method: 'GET', path: `/poster${pathOf(ref)}`, query })).data,
  }
}
