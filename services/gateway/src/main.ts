import { configOrExit, createClient, createLogger, onShutdown, startMetrics } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { coalescedCalls } from './calls/coalesced-calls.js'
import { loadGatewayConfig } from './config.js'
import { buildApp } from './http/app.js'
import type { Clients } from './http/context.js'
import { BUILT_IN_CUSTOM_ENDPOINTS } from './http/handlers/custom/index.js'
import { loadRoutingConfig } from './routing/config-file.js'

const env = configOrExit('gateway', () => loadGatewayConfig())
const routing = configOrExit('gateway', () => loadRoutingConfig(env.CONFIG_FILE, new Set(BUILT_IN_CUSTOM_ENDPOINTS.keys())))
const log = createLogger({ service: 'gateway', level: env.LOG_LEVEL })

const pkg = loadContentProtos().content.v1
const settings = { timeoutMs: env.RPC_TIMEOUT_MS, identity: { name: 'gateway', secret: env.SERVICE_SECRET } }
const ownCalls: Clients = {
  objects: createClient<v1.ObjectServiceDefinition, v1.ObjectServiceClient>(pkg.ObjectService, env.OBJECTS_SERVICE_ADDR, settings),
  tree: createClient<v1.TreeServiceDefinition, v1.TreeServiceClient>(pkg.TreeService, env.OBJECTS_SERVICE_ADDR, settings),
  auth: createClient<v1.AuthServiceDefinition, v1.AuthServiceClient>(pkg.AuthService, env.AUTH_SERVICE_ADDR, settings),
  poster: createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(pkg.PosterService, env.POSTER_SERVICE_ADDR, settings),
}
const clients = env.COALESCE_READS || env.COALESCE_WRITES
  ? coalescedCalls(ownCalls, env.RPC_TIMEOUT_MS, { reads: env.COALESCE_READS, saves: env.COALESCE_WRITES })
  : ownCalls

// the change feed's stream gets a channel of its own, without keepalive pings (STREAM_CHANNEL_OPTIONS)
const feed = createClient<v1.ObjectServiceDefinition, v1.ObjectServiceClient>(pkg.ObjectService, env.OBJECTS_SERVICE_ADDR, { ...settings, channel: 'stream' })

const app = await buildApp({
  settings: {
    timeZone: env.TIME_ZONE,
    jwt: { secret: env.JWT_SECRET, issuer: env.JWT_ISSUER, algorithm: env.JWT_ALGORITHM },
    trustProxy: env.TRUST_PROXY,
    apiKeyCacheSeconds: env.API_KEY_CACHE_SECONDS,
    readCache: env.READ_CACHE,
    readCacheMaxEntries: env.READ_CACHE_MAX_ENTRIES,
    logLevel: env.LOG_LEVEL,
    healthTimeoutMs: Math.min(env.RPC_TIMEOUT_MS, 2_000),
    streamTimeoutMs: env.STREAM_TIMEOUT_MS,
    thumbnailCacheBytes: env.THUMBNAIL_CACHE_BYTES,
    thumbnailCacheTtl: env.THUMBNAIL_CACHE_TTL,
    includeBudget: env.INCLUDE_BUDGET,
    live: {
      rules: { visibleStatuses: env.VISIBLE_STATUSES, windowFilter: env.PUBLICATION_WINDOW_FILTER, writerGroups: env.WRITER_GROUPS },
      maxStreams: env.LIVE_MAX_STREAMS, maxPerCaller: env.LIVE_MAX_STREAMS_PER_CALLER, retryAfterSeconds: 5,
      pingMs: env.LIVE_PING_MS, maxBufferBytes: env.LIVE_MAX_BUFFER_BYTES, flushMs: env.LIVE_FLUSH_MS, recentEvents: env.LIVE_RECENT_EVENTS, sessionCheckMs: env.LIVE_SESSION_CHECK_MS,
    },
  },
  routing,
  clients,
  feed: feed.raw,
  readiness: { objects: env.OBJECTS_SERVICE_ADDR, auth: env.AUTH_SERVICE_ADDR },
  logger: log,
})

// scrapable from the moment the service answers
const metrics = await startMetrics(env, log)
try {
  await app.listen({ host: env.HOST, port: env.PORT })
} catch (err) {
  log.fatal({ err }, 'cannot listen')
  process.exit(1)
}

onShutdown(log, env.SHUTDOWN_TIMEOUT_MS, async () => {
  await app.close()
  for (const client of [...Object.values(clients), feed]) client.close()
  await metrics.close()
})
