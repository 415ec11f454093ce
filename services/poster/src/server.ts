import { createRpcServer, type Logger, type RpcServer, type RpcServerOptions } from '@content/platform'
import { loadContentProtos } from '@content/protos'
import { RenderGate } from './core/render-gate.js'
import type { Imaging } from './imaging/sharp.js'
import { posterHandlers, type PosterServices } from './rpc/poster.handlers.js'
import type { MediaSettings, ServiceDeps } from './services/deps.js'
import type { ObjectsPort } from './services/objects.port.js'
import { Originals } from './services/originals.js'
import { Posters } from './services/posters.js'
import { Stats } from './services/stats.js'
import { Thumbnails } from './services/thumbnails.js'
import { Uploads } from './services/uploads.js'
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

/** The request paths over their dependencies: one render gate and one set of counters per process. */
export function createServices (deps: PosterServerDeps): PosterServices & { gate: RenderGate } {
  const { settings } = deps
  const gate = new RenderGate({
    concurrency: settings.renderConcurrency, queue: settings.renderQueue, maxWaitMs: settings.renderTimeoutMs,
    // refusals happen only once requests flow, after `stats` exists
    onBusy: (reason) => stats.refused(reason),
  })
  const stats = new Stats(gate)
  const d: ServiceDeps = { ...deps, gate, stats, now: deps.now ?? Date.now }
  return { uploads: new Uploads(d), posters: new Posters(d), thumbnails: new Thumbnails(d), originals: new Originals(d), stats, gate }
}

/** Builds the gRPC server with PosterService, without listening. */
/** The admin tool's RPCs: only an administrator may call them. */
export const POSTER_ADMINISTRATION = ['ImportFile', 'GetStats'] as const

export function buildPosterServer (deps: PosterServerDeps): { rpc: RpcServer, services: PosterServices & { gate: RenderGate } } {
  const rpc = createRpcServer(deps.log, deps.rpc)
  const services = createServices(deps)
  rpc.add(loadContentProtos().content.v1.PosterService.service, posterHandlers(services, deps.log), 'content.v1.PosterService', { administration: POSTER_ADMINISTRATION })
  return { rpc, services }
}
