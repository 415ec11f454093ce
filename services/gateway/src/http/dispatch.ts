import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RouteTable } from '../routing/compile.js'
import { resolve, type Resolution } from '../routing/resolve.js'
import { callerOf, presentedToken, type TokenClaims, type TokenVerifier } from './auth.js'
import { etagOf, ifNoneMatchHits } from './conditional.js'
import { UNSUPPORTED_BODY, type HandlerDeps, type Reply, type RequestContext, type RouteMatch } from './context.js'
import { requestInfo, type RequestInfo } from './envelope.js'
import { HttpError, describeError, originOf, sendError } from './errors.js'
import { CACHEABLE, HANDLERS } from './handlers/index.js'
import { checkQuery } from './query.js'
import { readCacheKey, type ReadCache } from './read-cache.js'

export interface DispatchDeps extends HandlerDeps {
  verifier: TokenVerifier
  readCache?: ReadCache
}

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH'])

function pathSegments (url: string): string[] {
  const path = url.split('?')[0] ?? '/'
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    throw new HttpError(400, 'MALFORMED_REQUEST', 'the path is not valid percent-encoding')
  }
}

function routeError (res: Extract<Resolution, { kind: 'error' }>): HttpError {
  const headers: Record<string, string> = res.allow ? { allow: res.allow.join(', ') } : {}
  return new HttpError(res.status, res.reason, res.message, res.details ?? null, headers)
}

/**
 * Decisions §2 precedence: malformed 400 → invalid token 401 → routing 404/405 → unsupported body 415 →
 * (in handlers) write without token 401 → backend answers.
 */
async function prepare (request: FastifyRequest, info: RequestInfo, deps: DispatchDeps): Promise<RequestContext> {
  const resolution = resolve(deps.table, request.method, pathSegments(request.url))
  if (resolution.kind === 'error' && resolution.status === 400) throw routeError(resolution)
  if (resolution.kind === 'route') checkQuery(resolution.handler, info.query)
  const token = presentedToken(request.headers.authorization, info.query)
  const claims: TokenClaims | undefined = token === undefined ? undefined : await deps.verifier(token)
  if (resolution.kind === 'error') throw routeError(resolution)
  if (WRITES.has(request.method) && request.body === UNSUPPORTED_BODY) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'write bodies must be application/json (or text/plain holding JSON)')
  }
  const route: RouteMatch = resolution
  return {
    info, route, caller: callerOf(claims), token, claims, requestId: String(request.id), clientAddress: request.ip,
    body: request.body === UNSUPPORTED_BODY ? undefined : request.body,
  }
}

/** Runs the handler, through the read cache when the answer may be shared by callers with the same groups. */
async function answer (request: FastifyRequest, ctx: RequestContext, deps: DispatchDeps): Promise<{ reply: Reply, json?: string, etag?: string }> {
  const cache = deps.readCache
  const cacheable = cache !== undefined && request.method === 'GET' && CACHEABLE.has(ctx.route.handler)
  const key = cacheable ? readCacheKey(ctx.info.url, ctx.info.query, ctx.caller.groups) : ''
  if (cacheable) {
    const hit = cache.get(key)
    if (hit) return { reply: { status: 200 }, json: hit.body, etag: hit.etag }
  }
  const epoch = cache?.epoch() ?? 0
  let reply: Reply
  try {
    reply = await HANDLERS[ctx.route.handler](ctx, deps)
  } finally {
    if (cache && WRITES.has(request.method) && ctx.route.handler !== 'custom') cache.invalidate()
  }
  if (reply.status === 204 || reply.body === undefined) return { reply }
  const json = JSON.stringify(reply.body)
  // a handler that sets its own Cache-Control (GET /auth: no-store) opts out of validators
  const read = (request.method === 'GET' || request.method === 'HEAD') && !reply.headers?.['cache-control']
  const etag = read ? etagOf(json) : undefined
  if (cacheable && reply.status === 200 && etag) cache.set(key, { body: json, etag }, epoch)
  return { reply, json, ...(etag ? { etag } : {}) }
}

export function createDispatcher (deps: DispatchDeps) {
  return async function dispatch (request: FastifyRequest, reply: FastifyReply) {
    // HEAD answers the headers of the GET, ETag included, so its envelope is the GET's
    const info = requestInfo(request.method === 'HEAD' ? 'GET' : request.method, originOf(request), request.url)
    let ctx: RequestContext
    let result: Awaited<ReturnType<typeof answer>>
    try {
      ctx = await prepare(request, info, deps)
      result = await answer(request, ctx, deps)
    } catch (err) {
      const described = describeError(err)
      if (described.status >= 500) request.log.error({ err }, 'request failed')
      return sendError(reply, info.url, described)
    }
    const { reply: out, json, etag } = result
    if (out.headers) reply.headers(out.headers)
    if (etag) {
      reply.header('etag', etag).header('cache-control', ctx.token ? 'private' : 'no-cache')
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send()
    } else if (!out.headers?.['cache-control']) {
      reply.header('cache-control', 'no-store')
    }
    reply.code(out.status)
    if (json === undefined) return reply.send()
    return reply.type('application/json; charset=utf-8').send(json)
  }
}
