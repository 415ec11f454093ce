import { createRpcServer, type Logger, type RpcServer, type RpcServerOptions } from '@content/platform'
import { loadContentProtos } from '@content/protos'
import { RenderGate } from './core/render-gate.js'
import type { Imaging } from './imaging/sharp.js'
import { posterHandlers } from './rpc/poster.handlers.js'
import type { MediaSettings, ServiceDeps } from './services/deps.js'
import { watchGate } from './services/media-metrics.js'
import type { ObjectsPort } from './services/objects.port.js'
import { countRefusal, newStats } from './services/stats.js'
import type { MediaStore } from './store/media.store.js'

export interface PosterServerDeps {
  log: Logger
  /** server settings (maximum connection age) */
  rpc: Pick<RpcServerOptions, 'maxConnectionAgeMs' | 'identity'>
  settings: MediaSettings
  store: MediaStore
  objects: ObjectsPort
  imaging: Imaging
  now?: () => number
}

/** What the request paths share: one render gate, one set of counters and one upload count per process. */
function serviceDeps (server: PosterServerDeps): ServiceDeps {
  const { log, settings, store, objects, imaging } = server
  const gate = new RenderGate({
    concurrency: settings.renderConcurrency, queue: settings.renderQueue, maxWaitMs: settings.renderTimeoutMs, onBusy: countRefusal,
  })
  watchGate(gate)
  return { log, settings, store, objects, imaging, gate, stats: newStats(), uploading: { active: 0 }, now: server.now ?? Date.now }
}

/** The admin tool's RPCs: only an administrator may call them. */
export const POSTER_ADMINISTRATION = ['ImportFile', 'GetStats'] as const

/** Builds the gRPC server with PosterService, without listening; `deps` is what its calls run on. */
export function buildPosterServer (server: PosterServerDeps): { rpc: RpcServer, deps: ServiceDeps } {
  const rpc = createRpcServer(server.log, server.rpc)
  const deps = serviceDeps(server)
  rpc.add(loadContentProtos().content.v1.PosterService.service, posterHandlers(deps), 'content.v1.PosterService', { administration: POSTER_ADMINISTRATION })
  return { rpc, deps }
}
