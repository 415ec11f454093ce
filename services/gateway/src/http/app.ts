import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import cors from '@fastify/cors'
import { REQUEST_ID_HEADER, acceptedRequestId, checkHealth, createLogger, parseJsonBody, type Logger } from '@content/platform'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { v1 } from '@content/protos'
import type { RoutingConfig } from '../routing/config-file.js'
import { createAuthenticator } from './api-keys.js'
import type { TrustedProxies } from './trusted-proxies.js'
import { createTokenVerifier, type JwtAlgorithm } from './auth.js'
import { UNSUPPORTED_TYPE, UnsupportedBody, type Clients, type HandlerDeps, type JsonBody } from './context.js'
import { handleClientError } from './client-errors.js'
import { answerClosing } from './closing.js'
import { unreadCharset, unreadCharsetMessage } from './body-charset.js'
import { bodyCoding } from './content-coding.js'
import { utf8Text } from './utf8.js'
import { CachedLane } from './cached-lane.js'
import { RerunLane } from './rerun-lane.js'
import { createDispatcher } from './dispatch.js'
import { HttpError, absoluteUrl, describeError, linkErrorsPage, registerErrorHandler, sendError } from './errors.js'
import { STREAM_POSITION_HEADER } from './handlers/changes.handlers.js'
import { BUILT_IN_CUSTOM_ENDPOINTS, customMethods, type CustomRegistry } from './handlers/custom/index.js'
import { FeedPosition, watchChanges, type WatchOptions } from './change-watch.js'
import { LiveHub, type LiveLimits } from '../live/live-hub.js'
import type { ReadRules } from '../live/live-access.js'
import { replayer } from '../live/live-replay.js'
import { ReadCache } from './read-cache.js'
import { labelRoute, recordRequests } from './request-metrics.js'
import { accessLog, logRequests } from './access-log.js'
import { lazyRequestLogger } from './request-logger.js'
import { compileRoutes } from './route-table.js'
import { registerHttpEdges, stampRequestId } from './http-edges.js'
import { closeInStages } from './staged-close.js'
import { createThumbnailCache } from './thumbnail-cache.js'
import { thumbnailHits } from './thumbnail-hits.js'

export interface GatewaySettings {
  timeZone: string
  jwt: { secret: string, issuer: string, algorithm: JwtAlgorithm }
  trustProxy: TrustedProxies
  /** API_KEY_CACHE_SECONDS (default 60) */
  apiKeyCacheSeconds?: number
  readCache: boolean
  readCacheMaxEntries: number
  logLevel: string
  /** deadline of the readiness probe's health checks */
  healthTimeoutMs: number
  /** STREAM_TIMEOUT_MS: deadline of uploads and downloads, and the time a client may take to send a request */
  streamTimeoutMs: number
  /** THUMBNAIL_CACHE_BYTES (0 = off) */
  thumbnailCacheBytes: number
  /** THUMBNAIL_CACHE_TTL, seconds (0 = off) */
  thumbnailCacheTtl: number
  /** a connection where nothing moves for this long is closed; a request still arriving is answered 408 (default 60 s) */
  idleTimeoutMs?: number
  /** INCLUDE_BUDGET (decisions §15; default 5,000) */
  includeBudget?: number
  /** live change streams (decisions §17); absent: the defaults of config.ts */
  live?: LiveSettings
}

/** The LIVE_* settings, and the read rules the streams decide by. */
export interface LiveSettings extends LiveLimits {
  rules: ReadRules
  pingMs: number
  maxBufferBytes: number
  /** LIVE_FLUSH_MS: live events wait to leave with the next ones, up to this long after their commit (StreamSettings.flushMs) */
  flushMs: number
  /** how often the open streams' logins are checked with the auth service (decisions §17: cut within 30 s) */
  sessionCheckMs: number
}

const LIVE_DEFAULTS: LiveSettings = {
  rules: { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['administrator', 'editor'] },
  maxStreams: 10_000, maxPerCaller: 50, retryAfterSeconds: 5, recentEvents: 10_000, pingMs: 15_000, maxBufferBytes: 1024 ** 2, flushMs: 50, sessionCheckMs: 15_000,
}

/** How long an EventSource waits before reconnecting (the SSE `retry:` field). */
const LIVE_RETRY_MS = 2_000

export interface AppDeps {
  settings: GatewaySettings
  routing: RoutingConfig
  clients: Clients
  /**
   * Backends the readiness probe asks: those every route needs. Poster is left out on purpose: when it
   * is down only media routes fail (503), and a probe naming it would take every gateway out of service.
   */
  readiness: { objects: string, auth: string }
  customs?: CustomRegistry
  watch?: WatchOptions
  /**
   * The objects service's client the change feed streams over: a channel of its own without keepalive
   * pings (STREAM_CHANNEL_OPTIONS says why). Default: the objects client's own channel.
   */
  feed?: v1.ObjectServiceClient
  now?: () => number
  /** the process's logger (default: a new one on stdout at `settings.logLevel`) */
  logger?: Logger
}

/** Reads, and the methods that may carry a body (only those pass the upload hook: a hook costs every request it runs for). */
const READ_METHODS = ['GET', 'HEAD']
const BODY_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH']

/** A connection with no byte moving either way for this long is closed (a stalled upload or download). */
export const IDLE_TIMEOUT_MS = 60_000
/** An idle kept-alive connection is closed after this (fastify's default). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000
/** The request line and headers must arrive within this. */
const HEADERS_TIMEOUT_MS = 20_000

/**
 * JSON (and legacy text/plain holding JSON) bodies, parsed here only to refuse malformed ones first
 * (decisions §2 precedence) and for what the gateway reads itself (logins, idempotency fingerprints);
 * writes forward the text. Any other type is kept aside for a 415.
 */
function registerBodyParsers (app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer' }, (req, bytes, done) => {
    // a coded body is not JSON until decoded: refused as a whole (dispatch.ts), never parsed
    if (bodyCoding(req.headers) !== undefined) return done(null, UNSUPPORTED_TYPE)
    // bytes of another charset are not parsed as if they were UTF-8
    const charset = unreadCharset(req.headers['content-type'])
    if (charset !== undefined) return done(null, new UnsupportedBody(unreadCharsetMessage(charset)))
    const raw = utf8Text(bytes as Buffer)
    // JSON is UTF-8 (RFC 8259 §8.1): other bytes would be kept as U+FFFD, not as what was sent
    if (raw === null) return done(new HttpError('MALFORMED_JSON', 'the request body is not UTF-8 text'), undefined)
    if (raw.trim() === '') return done(null, undefined)
    const parsed = parseJsonBody(raw)
    if (!parsed.ok) return done(new HttpError(parsed.reason, parsed.message, 'details' in parsed ? parsed.details : null), undefined)
    const body: JsonBody = { text: raw, value: parsed.value }
    done(null, body)
  })
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, UNSUPPORTED_TYPE))
}

function registerProbes (app: FastifyInstance, deps: AppDeps): void {
  app.get('/healthz', async (request, reply) => {
    labelRoute(request, '/healthz')
    return reply.header('cache-control', 'no-store').send({ status: 'ok' })
  })
  app.get('/readyz', async (request, reply) => {
    labelRoute(request, '/readyz')
    const checks = await Promise.all(Object.entries(deps.readiness).map(async ([name, address]) =>
      [name, await checkHealth(address, deps.settings.healthTimeoutMs)] as const))
    const failing = checks.filter(([, up]) => !up).map(([name]) => name)
    if (failing.length === 0) return reply.header('cache-control', 'no-store').send({ status: 'ok' })
    return sendError(reply, absoluteUrl(request), {
      status: 503, reason: 'SERVICE_UNAVAILABLE', message: `not ready: ${failing.join(', ')}`, details: { failing }, headers: {},
    })
  })
}

/** The whole HTTP face, built without listening (tests inject). */
export async function buildApp (deps: AppDeps): Promise<FastifyInstance> {
  const { settings, routing } = deps
  const customs = deps.customs ?? BUILT_IN_CUSTOM_ENDPOINTS
  const table = compileRoutes(routing, customMethods(customs))
  const idleTimeoutMs = settings.idleTimeoutMs ?? IDLE_TIMEOUT_MS
  // shorter than the idle timeout, so headers that stall are answered 408 before the connection is cut
  const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, idleTimeoutMs / 2)
  // Host is checked in our hook (registerHttpEdges), so its absence gets the error body; headers that do
  // not arrive in time are answered 408 within a second of the deadline (Node's default check is every 30 s).
  // A header sent twice is joined (RFC 9110 §5.3) where Node would keep the first of some (Host,
  // Authorization, Content-Type): two Host lines are then no host and refused, two credentials no token.
  const serverOptions = { requireHostHeader: false, joinDuplicateHeaders: true, headersTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout / 2) }
  const readCache = settings.readCache ? new ReadCache(settings.readCacheMaxEntries) : undefined
  const now = deps.now ?? Date.now
  const thumbnails = createThumbnailCache({ maxBytes: settings.thumbnailCacheBytes, ttlSeconds: settings.thumbnailCacheTtl, now })
  const feed = deps.feed ?? deps.clients.objects.raw
  const liveSettings = settings.live ?? LIVE_DEFAULTS
  const live = new LiveHub({ rules: liveSettings.rules, now, pingMs: liveSettings.pingMs, maxBufferBytes: liveSettings.maxBufferBytes, flushMs: liveSettings.flushMs, retryMs: LIVE_RETRY_MS },
    liveSettings, replayer(feed, settings.streamTimeoutMs))
  const handlerDeps: HandlerDeps = {
    clients: deps.clients, table, timeZone: settings.timeZone, customs, now, streamTimeoutMs: settings.streamTimeoutMs, ...(thumbnails ? { thumbnails } : {}), live,
    ...(settings.includeBudget === undefined ? {} : { includeBudget: settings.includeBudget }),
  }
  // a lane in front of fastify, for reads the full path taught it: from the read cache, or else by their handler
  const log = deps.logger ?? createLogger({ service: 'gateway', level: settings.logLevel })
  // the lanes write the same access line as the full path
  const access = accessLog(log)
  const lane = readCache ? new CachedLane(readCache, settings.readCacheMaxEntries, now, access) : undefined
  const rerun = readCache ? undefined : new RerunLane(handlerDeps, settings.readCacheMaxEntries, now, access)
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // one access line per request instead (access-log.ts)
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: routing.bodyLimit,
    trustProxy: routing.trustProxy ?? settings.trustProxy,
    // the client's id is kept only when it is safe everywhere it goes (logs, headers, gRPC metadata)
    requestIdHeader: false,
    // a request the rerun lane hands over keeps the id its backend calls carried
    genReqId: (req) => rerun?.handedOver(req)?.requestId ?? acceptedRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID(),
    // an upload may take minutes to arrive: a request (headers and body) may take as long as its stream,
    // while a connection where nothing moves is cut after a minute whatever the request
    requestTimeout: settings.streamTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: serverOptions,
    // closing, our hook answers instead of fastify (closing.ts)
    return503OnClosing: false,
    // bad percent-encoding is caught by the router before any handler: answer it in our error shape,
    // without waiting for a body that may still be arriving (an upload)
    frameworkErrors: (err, request, reply) => {
      stampRequestId(request, reply)
      if (!request.raw.complete) closeInStages(request.raw, reply.raw)
      return sendError(reply, absoluteUrl(request), describeError(err))
    },
    clientErrorHandler: handleClientError,
    // fastify's own server with a lane in front: fastify sees only the requests the lane leaves or hands over
    serverFactory: (handler) => {
      const server = createServer(serverOptions, (req, res) => { if (!(lane ? lane.serve(req, res) : rerun?.serve(req, res, handler))) handler(req, res) })
      // what fastify sets on a server it creates itself, from the options above
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
      server.requestTimeout = settings.streamTimeoutMs
      server.setTimeout(idleTimeoutMs)
      return server
    },
  })
  logRequests(app, access)
  recordRequests(app)
  registerHttpEdges(app)
  linkErrorsPage(app, table.basePath)
  registerErrorHandler(app)
  registerBodyParsers(app)
  await app.register(cors, {
    origin: routing.corsOrigins === '*' ? '*' : routing.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    // Last-Event-ID: a fetch-based client of another origin resumes a live stream with it (decisions §17)
    allowedHeaders: ['Authorization', 'Content-Type', 'If-None-Match', 'If-Range', 'Range', 'X-Request-Id', 'Idempotency-Key', 'Last-Event-ID'],
    exposedHeaders: ['ETag', 'Location', 'Allow', 'Retry-After', 'WWW-Authenticate', 'Content-Range', 'Content-Disposition', 'Accept-Ranges', 'Idempotent-Replayed', 'X-Request-Id', STREAM_POSITION_HEADER],
    maxAge: 600,
    strictPreflight: false,
  })
  answerClosing(app)
  // the one follower of the feed: the read cache (when on) and the live streams (unless blacklisted)
  const streams = table.routes.some((r) => r.spec.name === 'changes.stream')
  if (readCache || streams) {
    const watcher = watchChanges(feed, readCache ?? new FeedPosition(), app.log, { ...deps.watch, tell: (change) => live.observe(change) })
    app.addHook('onClose', async () => watcher.stop())
  }
  const sessions = setInterval(() => {
    live.checkSessions(async (refs) => (await deps.clients.auth.CheckSessions({ sessions: refs.map((r) => ({ user_id: r.userId, session: r.session })) })).alive)
      .catch((err: unknown) => app.log.warn({ err }, 'live streams: the session check failed; tried again next round'))
  }, liveSettings.sessionCheckMs)
  sessions.unref()
  // streams end first (event: shutdown), so the server's close does not wait for them
  app.addHook('preClose', async () => { clearInterval(sessions); live.close() })
  const { dispatch, rawBodyHook } = createDispatcher({
    ...handlerDeps,
    authenticate: createAuthenticator(createTokenVerifier({ ...settings.jwt, ...(deps.now ? { now: deps.now } : {}) }),
      (key) => deps.clients.auth.ExchangeApiKey({ secret: key }), (settings.apiKeyCacheSeconds ?? 60) * 1000),
    ...(readCache ? { readCache } : {}),
    ...(lane ? { lane } : {}),
    ...(rerun ? { rerun } : {}),
  })
  registerProbes(app, deps)
  const hits = thumbnails ? thumbnailHits(table, thumbnails, now) : undefined
  const read = hits ? (request: FastifyRequest, reply: FastifyReply) => (hits(request, reply) ? reply : dispatch(request, reply)) : dispatch
  app.route({ method: READ_METHODS, url: '/*', handler: read })
  // uploads are answered before fastify reads their bodies: streamed as they arrive, never parsed or limited here
  app.route({ method: BODY_METHODS, url: '/*', onRequest: rawBodyHook, handler: dispatch })
  app.setNotFoundHandler(dispatch)
  const front = lane ?? rerun
  if (front) {
    // closing, the full path answers 503 with the error body (closing.ts)
    app.addHook('onReady', async () => { front.serving = true })
    app.addHook('preClose', async () => { front.serving = false })
  }
  return app
}
