import { configOrExit, createLogger, loadConfig, onShutdown, openedOrExit, serviceIdentity, startMetrics } from '@content/platform'
import { posterEnv } from './config.js'
import { createImaging } from './imaging/sharp.js'
import { createObjectsClient } from './rpc/objects.client.js'
import { buildPosterServer } from './server.js'
import { mediaSettings } from './services/deps.js'
import { newCollectorLoop, startCollecting, stopCollecting, type CollectorDeps } from './services/gc.js'
import { openMediaStore } from './store/open-store.js'

const config = configOrExit('poster', () => loadConfig(posterEnv))
const log = createLogger({ service: 'poster', level: config.LOG_LEVEL })
const now = () => Date.now()

const media = await openedOrExit(log, 'media store', () => openMediaStore(config, log, now))
const { store } = media
const { identity, verifiers } = serviceIdentity('poster', config)
const objects = createObjectsClient(config.OBJECTS_SERVICE_ADDR, { timeoutMs: config.RPC_TIMEOUT_MS, identity })
const settings = mediaSettings(config)
const imaging = createImaging({
  maxPixels: settings.uploadMaxPixels, timeoutMs: settings.renderTimeoutMs, renderConcurrency: settings.renderConcurrency,
})
const { rpc } = buildPosterServer({ log, rpc: { maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS, identity: verifiers }, settings, store, objects, imaging, now })
const collector: CollectorDeps = {
  store, objects, log: log.child({ task: 'media-gc' }), now,
  intervalMs: config.MEDIA_GC_INTERVAL * 1000, graceMs: config.MEDIA_GC_GRACE * 1000, loop: newCollectorLoop(),
}
startCollecting(collector)
// not ready while the database cannot be reached (PostgreSQL); back by itself
media.followAvailability((available) => rpc.setServing(available))

// scrapable from the moment the service answers
const metrics = await startMetrics(config, log)
const port = await rpc.listen(config.GRPC_HOST, config.GRPC_PORT)
log.info({
  host: config.GRPC_HOST, port, store: config.MEDIA_STORE,
  ...(config.MEDIA_STORE === 'gridfs' ? { mongodbDb: config.MONGODB_DB } : config.MEDIA_STORE === 'postgres' ? { schema: 'poster' } : { dataDir: config.DATA_DIR }),
}, 'poster service listening')

onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await stopCollecting(collector)
  await rpc.shutdown(config.SHUTDOWN_TIMEOUT_MS)
  await store.close()
  objects.close()
  await metrics.close()
})
