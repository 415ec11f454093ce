import { openServerStream } from '@content/platform'
import type { v1 } from '@content/protos'
import { ifNoneMatchHits } from '../conditional.js'
import { fileAnswer, notModifiedHeaders } from '../media/file-headers.js'
import { clientGone, fileBody, readAll, readHeader, type FileCall } from '../media/file-stream.js'
import { parseRange } from '../media/range.js'
import { thumbnailCacheKey, type CachedFile } from '../thumbnail-cache.js'
import { callOptions, type Handler, type HandlerDeps, type Reply, type RequestContext } from '../context.js'

const streamOptions = (ctx: RequestContext, deps: HandlerDeps) => ({ ...callOptions(ctx), timeoutMs: deps.streamTimeoutMs })

const single = (value: string | string[] | undefined): string => typeof value === 'string' ? value : ''

/** What answering a file header depends on besides the header. */
export interface FileRequest { now: number, token: boolean, head: boolean, ifNoneMatch: string | string[] | undefined }

/** The answer for a header: 304 for a matching If-None-Match, headers only for HEAD, else the bytes. */
export function headerReply (request: FileRequest, header: v1.FileHeader__Output, original: boolean): { reply: Reply, bytesWanted: boolean } {
  const answer = fileAnswer(header, { now: request.now, token: request.token, original })
  if (header.etag && ifNoneMatchHits(request.ifNoneMatch, header.etag)) {
    return { reply: { status: 304, headers: notModifiedHeaders(answer), bytes: null }, bytesWanted: false }
  }
  return { reply: { ...answer, bytes: null }, bytesWanted: !request.head }
}

/** A thumbnail answered from the cache. */
export function cachedReply (request: FileRequest, hit: CachedFile): Reply {
  const { reply, bytesWanted } = headerReply(request, hit.header, false)
  return bytesWanted ? { ...reply, bytes: hit.body } : reply
}

const fileRequest = (ctx: RequestContext, deps: HandlerDeps): FileRequest =>
  ({ now: deps.now(), token: ctx.token !== undefined, head: ctx.head, ifNoneMatch: ctx.headers['if-none-match'] })

/** Reads the header of a file stream and answers it; the bytes stream through with backpressure. */
async function streamed (ctx: RequestContext, deps: HandlerDeps, call: FileCall, original: boolean) {
  const header = await readHeader(call, ctx.client.signal)
  const { reply, bytesWanted } = headerReply(fileRequest(ctx, deps), header, original)
  if (!bytesWanted) {
    call.cancel()
    return { header, reply }
  }
  return { header, reply: { ...reply, bytes: fileBody(call, header.size, ctx.client.signal) } }
}

/** GET|HEAD /media/{object_id}/{file_name}: the original, with the object's read rights (decisions §12). */
export const original: Handler = async (ctx, deps) => {
  const raw = deps.clients.poster.raw
  const call = openServerStream<v1.GetOriginalRequest, v1.FileChunk__Output>(raw.GetOriginal.bind(raw), {
    object_id: ctx.params.objectId ?? '',
    file_name: ctx.params.fileName ?? '',
    ...parseRange(ctx.headers.range),
    if_range: single(ctx.headers['if-range']),
    head: ctx.head,
  }, streamOptions(ctx, deps))
  return (await streamed(ctx, deps, call, true)).reply
}

/**
 * GET|HEAD /thumbnails/…: the poster service checks the signature and renders; small answers are kept
 * whole in the thumbnail cache, so a repeated request never reaches it.
 */
export const thumbnail: Handler = async (ctx, deps) => {
  const query = ctx.info.query
  const request = { path: (ctx.params.rest ?? []).join('/'), expires: query.get('expires') ?? '', signature: query.get('sig') ?? '' }
  const cache = deps.thumbnails
  const key = thumbnailCacheKey(request)
  const hit = cache?.get(key)
  if (hit) return cachedReply(fileRequest(ctx, deps), hit)
  const raw = deps.clients.poster.raw
  const call = openServerStream<v1.GetThumbnailRequest, v1.FileChunk__Output>(
    raw.GetThumbnail.bind(raw), { ...request, head: ctx.head }, streamOptions(ctx, deps))
  const { header, reply } = await streamed(ctx, deps, call, false)
  if (!cache || !reply.bytes || Buffer.isBuffer(reply.bytes) || !cache.accepts(header)) return reply
  const body = await readAll(reply.bytes).catch((err: unknown) => { throw ctx.client.signal.aborted ? clientGone() : err })
  cache.set(key, { header, body })
  return { ...reply, bytes: body }
}
