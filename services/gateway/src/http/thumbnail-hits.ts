import type { FastifyReply, FastifyRequest } from 'fastify'
import { pathSegments } from '../routing/resolve.js'
import type { RouteTable } from './context.js'
import { cachedReply } from './handlers/media.handlers.js'
import { labelRoute } from './request-metrics.js'
import { thumbnailCacheKey, type ThumbnailCache } from './thumbnail-cache.js'

const THUMBNAIL_QUERY = new Set(['expires', 'sig'])

/**
 * The cheapest answer the gateway gives (benchmark (g)): a thumbnail already in the cache, asked for
 * without a token and with only the thumbnail's own query parameters, is sent before the dispatcher's
 * general path (token checks, routing, query checks, envelope) runs. Anything else — a miss, a token, an
 * odd query or path — answers false and takes that path, which gives the same answers.
 */
export function thumbnailHits (table: RouteTable, cache: ThumbnailCache, now: () => number) {
  const prefix = `${table.basePath}/thumbnails/`
  const route = table.routes.find((r) => r.spec.name === 'media.thumbnail')?.label
  return (request: FastifyRequest, reply: FastifyReply): boolean => {
    const url = request.url
    if (!url.startsWith(prefix) || request.headers.authorization !== undefined) return false
    const q = url.indexOf('?')
    const path = pathSegments(q === -1 ? url.slice(prefix.length) : url.slice(prefix.length, q))
    if (path === null || path.length === 0) return false
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
    for (const key of query.keys()) if (!THUMBNAIL_QUERY.has(key)) return false
    const expires = query.getAll('expires')
    const sig = query.getAll('sig')
    if (expires.length > 1 || sig.length > 1) return false
    const hit = cache.get(thumbnailCacheKey({ path: path.join('/'), expires: expires[0] ?? '', signature: sig[0] ?? '' }))
    if (!hit) return false
    labelRoute(request, route)
    const answer = cachedReply({ now: now(), token: false, head: request.method === 'HEAD', ifNoneMatch: request.headers['if-none-match'] }, hit)
    reply.code(answer.status)
    if (answer.headers) reply.headers(answer.headers)
    reply.send(answer.bytes ?? undefined)
    return true
  }
}
