import type * as grpc from '@grpc/grpc-js'
import { createRpcServer, type RpcServer } from '@content/platform'
import { loadContentProtos } from '@content/protos'
import { ChangeFeed } from './core/change-feed.js'
import { nextBoundary } from './core/visibility.js'
import type { ObjectsStore } from './core/ports.js'
import type { ObjectsServerDeps } from './rpc/deps.js'
import { answeredWhenDurable } from './rpc/durable-answers.js'
import { feedEncoding } from './rpc/feed-encoding.js'
import { mediaHandlers } from './rpc/media.handlers.js'
import { objectsHandlers } from './rpc/objects.handlers.js'
import { treeHandlers } from './rpc/tree.handlers.js'
import { webhookHandlers } from './rpc/webhooks.handlers.js'

export type { ObjectsServerDeps }

/** ObjectService methods only an administrator may call: the admin tool's. WebhookService is the admin tool's whole. */
export const OBJECTS_ADMINISTRATION = ['ImportFixtures', 'SetPermissions', 'ExportObjects'] as const

/** Builds the gRPC server with ObjectService, TreeService, MediaService and WebhookService, without listening. */
export function buildObjectsServer (deps: ObjectsServerDeps): RpcServer {
  // fixtures imports carry whole files in one message, within the platform's MAX_MESSAGE_BYTES
  const rpc = createRpcServer(deps.log, deps.rpc)
  const { v1 } = loadContentProtos().content
  const durable = <T extends object>(service: { service: grpc.ServiceDefinition }, impl: T): T => answeredWhenDurable(service.service, impl, deps.store)
  const feed = feedEncoding(v1.ObjectService.service)
  rpc.add(feed.definition, durable(v1.ObjectService, objectsHandlers(deps, feed.encode)), 'content.v1.ObjectService', { administration: OBJECTS_ADMINISTRATION })
  rpc.add(v1.TreeService.service, durable(v1.TreeService, treeHandlers(deps)), 'content.v1.TreeService')
  rpc.add(v1.MediaService.service, durable(v1.MediaService, mediaHandlers(deps)), 'content.v1.MediaService')
  rpc.add(v1.WebhookService.service, durable(v1.WebhookService, webhookHandlers(deps)), 'content.v1.WebhookService', { administration: Object.keys(v1.WebhookService.service) })
  return rpc
}

/** Bound on how late a commit of another process reaches this one's feed subscribers. */
const FEED_POLL_MS = 250

/** The change feed of a store: pulled after each commit, and told each publication-window boundary. */
export async function createChangeFeed (store: ObjectsStore, now: () => number, onError?: (err: unknown) => void): Promise<ChangeFeed> {
  const feed = new ChangeFeed({
    storeId: store.storeId,
    changes: store.changes,
    now,
    pollMs: FEED_POLL_MS,
    nextBoundary: async (at) => {
      const { starts, ends } = await store.objects.windowDates(at)
      return nextBoundary(starts, ends, at)
    },
    ...(onError ? { onError } : {}),
  })
  await feed.start()
  // subscribers hear of a commit once it is on disk (the SQLite store's group commit)
  store.onChange(() => { store.durable().then(() => feed.pull(), () => {}) })
  feed.pull() // what committed while it started
  return feed
}
