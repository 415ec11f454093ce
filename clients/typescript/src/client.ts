import { type AuthApi, createAuth } from './auth.js'
import { type ChangesApi, createChanges } from './changes.js'
import { createObjects, type ObjectsApi } from './objects.js'
import { createRelations, type RelationsApi } from './relations.js'
import { createRevisions, type RevisionsApi } from './revisions.js'
import { memoryStorage, type TokenStorage } from './tokens.js'
import { createTransport, type FetchLike, type Refresher } from './transport.js'
import { createTrash, type TrashApi } from './trash.js'
import { createTree, type TreeApi } from './tree.js'
import type { Listing } from './types.js'
import { createUploads, type UploadsApi } from './uploads.js'

export interface ClientOptions {
  /** the API's base URL, e.g. `https://api.example.com` or `http://localhost:3000/api` */
  baseUrl: string
  /** a fetch implementation (default: the global fetch) */
  fetch?: FetchLike
  /** where tokens are kept (default: memory) */
  storage?: TokenStorage
}

export interface Client {
  auth: AuthApi
  objects: ObjectsApi
  tree: TreeApi
  relations: RelationsApi
  trash: TrashApi
  revisions: RevisionsApi
  uploads: UploadsApi
  changes: ChangesApi
  /** GET /: each available endpoint's URL. */
  endpoints (): Promise<Listing>
}

export function createClient (options: ClientOptions): Client {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  let refresher: Refresher = async () => false
  const transport = createTransport({ baseUrl: options.baseUrl, fetch: fetchImpl, storage: options.storage ?? memoryStorage(), refresh: () => refresher })
  const auth = createAuth(transport)
  refresher = auth.refresher
  const objects = createObjects(transport)
  const { refresher: _, ...authApi } = auth
  return {
    auth: authApi,
    objects,
    tree: createTree(transport),
    relations: createRelations(transport),
    trash: createTrash(transport),
    revisions: createRevisions(transport),
    uploads: createUploads(transport, objects),
    changes: createChanges(transport),
    endpoints: async () => (await transport.send<{ data: Listing }>({ method: 'GET', path: '/' })).data,
  }
}
