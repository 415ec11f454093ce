import { randomUUID } from 'node:crypto'
import { configOrExit, createLogger, loadConfig, onShutdown, openedOrExit, previewKey, serviceIdentity, startMetrics } from '@content/platform'
import { objectsEnv } from './config.js'
import { startOutboxRetention } from './outbox-retention.js'
import { startTrashRetention } from './trash-retention.js'
import { announcedStatuses } from './core/scheduled-publication.js'
import { startScheduledPublication } from './scheduled-publication.js'
import { DeliveryLoop } from './webhooks/delivery-loop.js'
import { sendWebhook } from './webhooks/send.js'
import { buildObjectsServer, createChangeFeed } from './server.js'
import { openStore } from './store/open-store.js'

const config = configOrExit('objects', () => loadConfig(objectsEnv))
const log = createLogger({ service: 'objects', level: config.LOG_LEVEL })
const now = () => Date.now()

const { store, followAvailability } = await openedOrExit(log, 'store', () => openStore(config, log))
const visibility = { visibleStatuses: config.VISIBLE_STATUSES, windowFilter: config.PUBLICATION_WINDOW_FILTER, writerGroups: config.WRITER_GROUPS }
const feed = await createChangeFeed(store, now, (err) => log.error({ err }, 'change feed failed'))
const deliveries = new DeliveryLoop({
  store, holder: randomUUID(), now, log,
  send: (url, message, secret) => sendWebhook(url, message, { secret, timeoutMs: config.WEBHOOK_TIMEOUT_MS, policy: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE } }),
  retry: { firstDelayMs: 5_000, maxDelayMs: 3_600_000, windowMs: config.WEBHOOK_RETRY_HOURS * 3_600_000 },
})
feed.subscribe(() => deliveries.committed())
const rpc = buildObjectsServer({
  log,
  rpc: { maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS, identity: serviceIdentity('objects', config).verifiers },
  store,
  feed,
  reads: { store, visibility, now, includeBudget: config.INCLUDE_BUDGET },
  writerGroups: config.WRITER_GROUPS,
  now,
  uploadTtlMs: config.UPLOAD_TOKEN_TTL * 1000,
  preview: { key: previewKey(config.SERVICE_SECRET), ttlMs: config.PREVIEW_TTL * 1000 },
  webhooksAdded: () => deliveries.poke(),
})
// not ready while the database cannot be reached (PostgreSQL), so a replica leaves rotation; back by itself
const availability = followAvailability((available) => rpc.setServing(available))
const stopRetention = startOutboxRetention(store, { retentionMs: config.CHANGE_RETENTION_HOURS * 3_600_000, everyMs: 600_000, now }, log)
const stopTrashRetention = startTrashRetention(store, { retentionMs: config.TRASH_RETENTION_DAYS * 86_400_000, everyMs: 600_000, now }, log)
// with the window filter off rounds still move the watermark (announcing nothing): turning it on later announces no old boundaries
const schedule = startScheduledPublication(store, feed, { statuses: announcedStatuses(visibility), now, everyMs: 5_000 }, log)
// scrapable from the moment the service answers
const metrics = await startMetrics(config, log)
const port = await rpc.listen(config.GRPC_HOST, config.GRPC_PORT)
deliveries.start()
log.info({
  host: config.GRPC_HOST, port, store: config.STORE,
  ...(config.STORE === 'mongodb' ? { mongodbDb: config.MONGODB_DB } : { dataDir: config.DATA_DIR }),
}, 'objects service listening')

onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
  availability.stop()
  stopRetention()
  stopTrashRetention()
  schedule.stop()
  await deliveries.close()
  feed.close() // ends open WatchChanges streams so the server can drain
  await rpc.shutdown(config.SHUTDOWN_TIMEOUT_MS)
  await store.close()
  await metrics.close()
})
