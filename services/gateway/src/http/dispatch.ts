import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { pathSegments, resolve } from '../routing/resolve.js'
import type { Resolution as AnyResolution, RouteError } from '../routing/route-types.js'
import { isApiKey, type Authenticate } from './api-keys.js'
import { callerOf, presentedToken } from './auth.js'
import { BackendNotes } from './backend-notes.js'
import { ACCEPTED_CODINGS, bodyCoding, codedBodyMessage } from './content-coding.js'
import type { CachedLane } from './cached-lane.js'
import { plain, type RerunLane } from './rerun-lane.js'
import { ifNoneMatchHits } from './conditional.js'
import { serialized } from './shared-replies.js'
import { PRIVATE_NO_STORE, UnsupportedBody, type Handler, type HandlerDeps, type JsonBody, type Reply, type RequestContext, type RouteTable } from './context.js'
import { requestInfo, type RequestInfo } from './envelope.js'
import { HttpError, describeError, logFailure, originOf, sendError } from './errors.js'
import { checkQuery, checkQueryText } from './query.js'
import { readCacheKey, type ReadCache } from './read-cache.js'
import { ResponseClient } from './response-client.js'
import { labelRoute } from './request-metrics.js'
import { closeInStages } from './staged-close.js'

export interface DispatchDeps extends HandlerDeps {
  /** a presented access token or API key → the access token passed on and its claims */
  authenticate: Authenticate
  readCache?: ReadCache
  /** taught the reads answered from the read cache (anonymous or with an access token), which it then answers before fastify */
  lane?: CachedLane
  /** with the read cache off: taught the reads its handlers may answer again, which it then answers before fastify */
  rerun?: RerunLane
}

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH'])

type Resolution = AnyResolution<Handler>

/** Decoded path segments (empty ones dropped) and the route they lead to; bad percent-encoding is a 400. */
function resolveUrl (table: RouteTable, method: string, url: string): Resolution {
  const segments = pathSegments(url)
  if (segments === null) return { kind: 'error', status: 400, reason: 'MALFORMED_REQUEST', message: 'the path is not valid percent-encoding' }
  return resolve(table, method, segments)
}

function routeError (res: RouteError): HttpError {
  const headers: Record<string, string> = res.allow ? { allow: res.allow.join(', ') } : {}
  return new HttpError(res.reason, res.message, res.details ?? null, headers)
}


/**
 * Decisions §2 precedence: malformed 400 → invalid token 401 → routing 404/405 → unsupported body 415 →
 * (in handlers) write without token 401 → backend answers.
 */
async function prepare (request: FastifyRequest, reply: FastifyReply, info: RequestInfo, resolution: Resolution, deps: DispatchDeps): Promise<RequestContext> {
  if (resolution.kind === 'error' && resolution.status === 400) throw routeError(resolution)
  checkQueryText(info.query, request.url)
  const { list, shape } = resolution.kind === 'route' ? checkQuery(resolution.route.spec.accepts, info.query, resolution.route.spec.grammar, Date.now(), deps.includeBudget) : {}
  if (resolution.kind === 'route') resolution.route.spec.checkOwnQuery?.(info.query)
  const presented = presentedToken(request.headers.authorization, info.query)
  const credential = presented === undefined ? undefined : await deps.authenticate(presented)
  if (resolution.kind === 'error') throw routeError(resolution)
  if (WRITES.has(request.method)) {
    const coding = bodyCoding(request.headers)
    if (coding !== undefined) throw new HttpError('UNSUPPORTED_MEDIA_TYPE', codedBodyMessage(coding), null, ACCEPTED_CODINGS)
    if (request.body instanceof UnsupportedBody) throw new HttpError('UNSUPPORTED_MEDIA_TYPE', request.body.message)
  }
  const body = request.body instanceof UnsupportedBody ? undefined : request.body as JsonBody | undefined
  // a plain literal: one with a getter is built on V8's slow path, at about a microsecond each
  return {
    info, route: resolution.route, params: resolution.params, list, shape, caller: callerOf(credential?.claims), token: credential?.token, claims: credential?.claims, requestId: String(request.id), clientAddress: request.ip,
    body: body?.value, bodyText: body?.text,
    rawBody: resolution.rawBody ? request.raw : undefined,
    headers: request.headers, head: request.method === 'HEAD', notes: new BackendNotes(), client: new ResponseClient(reply.raw),
  }
}

interface Answer {
  reply: Reply
  json?: string | Buffer
  etag?: string
  /** the read cache key the answer came from, when it came from the cache */
  cachedAt?: string
}

/**
 * A read whose answer depends on its URL, query and caller's groups alone, so that callers with the same
 * groups may share it (the read cache) and its handler may answer it again for the same request (the
 * rerun lane). An answer with drafts is the writer's own (decisions §16), one of relative times changes.
 */
const repeatable = (request: FastifyRequest, ctx: RequestContext): boolean =>
  request.method === 'GET' && ctx.route.spec.cacheable === true && ctx.shape?.relativeTime !== true && ctx.shape?.drafts !== true

/** The handler's answer, or the one the rerun lane had from it for this request before it handed the request here. */
async function handle (request: FastifyRequest, ctx: RequestContext, deps: DispatchDeps): Promise<Reply> {
  const handed = deps.rerun?.handedOver(request.raw)
  if (handed === undefined) return ctx.route.spec.handler(ctx, deps)
  if ('error' in handed.outcome) throw handed.outcome.error
  return handed.outcome.reply
}

/** Runs the handler, through the read cache when the answer may be shared by callers with the same groups. */
async function answer (request: FastifyRequest, ctx: RequestContext, deps: DispatchDeps): Promise<Answer> {
  const cache = deps.readCache
  const spec = ctx.route.spec
  const drafts = ctx.shape?.drafts === true
  const cacheable = cache !== undefined && repeatable(request, ctx)
  const key = cacheable ? readCacheKey(ctx.info.url, ctx.info.query, ctx.caller.groups) : ''
  if (cacheable) {
    // read-your-writes behind a write acknowledged here: the feed's event, not the backend, is awaited
    const behind = cache.caughtUp()
    if (behind) await behind
    const hit = cache.get(key)
    if (hit) return { reply: { status: 200 }, json: hit.body, etag: hit.etag, cachedAt: key }
  }
  const begun = cache?.begin() ?? 0
  const writes = cache !== undefined && WRITES.has(request.method) && spec.keepsReadCache !== true
  let reply: Reply
  try {
    reply = await handle(request, ctx, deps)
  } catch (err) {
    // read-your-writes: a write that may have been applied must not leave its old state served here
    if (writes && describeError(err).status >= 500) cache.invalidate()
    throw err
  }
  if (writes && ctx.notes.changeSeq > 0) cache.written(ctx.notes.changeSeq)
  if (drafts) reply = { ...reply, headers: { ...reply.headers, 'cache-control': PRIVATE_NO_STORE } }
  if (reply.bytes !== undefined || reply.status === 204 || reply.body === undefined) return { reply }
  // a handler that sets its own Cache-Control (GET /auth: no-store) opts out of validators
  const read = (request.method === 'GET' || request.method === 'HEAD') && !reply.headers?.['cache-control']
  const { json, etag } = serialized(reply, read)
  const dependsOn = ctx.notes.dependsOn
  if (cacheable && reply.status === 200 && etag && dependsOn) cache.set(key, { body: Buffer.from(json), etag }, dependsOn, begun)
  return { reply, json, etag }
}

/**
 * How long a lane may answer a read again for its caller: anonymous, or with an access token until it
 * expires; never with an API key, which the full path re-checks with the auth service every
 * API_KEY_CACHE_SECONDS.
 */
function replayable (request: FastifyRequest, ctx: RequestContext): { expires?: number } | undefined {
  const presented = presentedToken(request.headers.authorization, ctx.info.query)
  if (presented !== undefined && isApiKey(presented)) return undefined
  return ctx.claims ? { expires: ctx.claims.exp * 1000 } : {}
}

/** Teaches a lane a read it may answer again: the cached lane one answered from the cache, the rerun lane a plain 200 of its handler. */
function teach (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext, result: Answer, deps: DispatchDeps): void {
  if (deps.lane === undefined && deps.rerun === undefined) return
  const lifetime = replayable(request, ctx)
  if (lifetime === undefined) return
  if (result.cachedAt !== undefined) deps.lane?.learn(request.raw, { key: result.cachedAt, route: ctx.route.label, headers: reply.getHeaders(), ...lifetime })
  else if (plain(result.reply) && repeatable(request, ctx)) deps.rerun?.learn(request.raw, { ctx, headers: reply.getHeaders(), ...lifetime })
}

export interface Dispatcher {
  /** The handler of every route. */
  dispatch (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
  /**
   * onRequest hook: a request whose body is file bytes is answered right here, before fastify would
   * read (and parse, and limit) its body.
   */
  rawBodyHook (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void
}

export function createDispatcher (deps: DispatchDeps): Dispatcher {
  // the hook decides the route of requests that may carry a body; the dispatcher reuses its decision
  const resolutions = new WeakMap<FastifyRequest, Resolution>()
  const resolutionOf = (request: FastifyRequest): Resolution =>
    resolutions.get(request) ?? resolveUrl(deps.table, request.method, request.url)

  async function dispatch (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    // HEAD answers the headers of the GET, ETag included, so its envelope is the GET's
    const info = requestInfo(request.method === 'HEAD' ? 'GET' : request.method, originOf(request), request.url)
    const resolution = resolutionOf(request)
    // the one place a routed request's template is known; errors of routing stay unmatched
    if (resolution.kind === 'route') labelRoute(request, resolution.route.label)
    // an answer sent before an unparsed body was received in full closes the connection: the rest is never forwarded
    const closeIfUnread = () => {
      if (resolution.rawBody && !request.raw.complete) closeInStages(request.raw, reply.raw)
    }
    let ctx: RequestContext
    let result: Answer
    try {
      ctx = await prepare(request, reply, info, resolution, deps)
      result = await answer(request, ctx, deps)
    } catch (err) {
      const described = describeError(err)
      logFailure(request, err, described)
      closeIfUnread()
      return sendError(reply, info.url, described)
    }
    const { reply: out, json, etag } = result
    closeIfUnread()
    if (out.headers) reply.headers(out.headers)
    if (out.bytes !== undefined) return reply.code(out.status).send(out.bytes ?? undefined)
    if (etag) {
      reply.header('etag', etag).header('cache-control', ctx.token ? 'private' : 'no-cache')
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send()
    } else if (!out.headers?.['cache-control']) {
      reply.header('cache-control', 'no-store')
    }
    reply.code(out.status)
    if (json === undefined) return reply.send()
    reply.type('application/json; charset=utf-8')
    teach(request, reply, ctx, result, deps)
    return reply.send(json)
  }

  /** Registered on the routes of the methods that may carry a body (reads never pass it). */
  function rawBodyHook (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const resolution = resolveUrl(deps.table, request.method, request.url)
    resolutions.set(request, resolution)
    if (!resolution.rawBody) { done(); return }
    // answered here and `done` never called: the lifecycle stops, so fastify never reads the body
    dispatch(request, reply).catch(done)
  }

  return { dispatch, rawBodyHook }
}
