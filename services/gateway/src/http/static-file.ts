import { present } from '@content/platform'
import { etagOf, ifNoneMatchHits } from './conditional.js'
import type { Reply, RequestContext } from './context.js'

/** Bytes the gateway itself serves (the reference pages and their assets), with their validator. */
export interface StaticFile { body: Buffer, headers: Readonly<Record<string, string>> }

/** A file kept in memory: its type, caching, strong ETag and `nosniff`; `extra` adds headers such as a CSP. */
export function staticFile (body: Buffer, type: string, cacheControl: string, extra: Record<string, string> = {}): StaticFile {
  const etag = etagOf(body)
  return { body, headers: { 'content-type': type, 'cache-control': cacheControl, 'etag': etag, 'x-content-type-options': 'nosniff', ...extra } }
}

/** 304 on a matching If-None-Match, headers only for HEAD, else the bytes. */
export function staticReply (ctx: RequestContext, file: StaticFile): Reply {
  if (ifNoneMatchHits(ctx.headers['if-none-match'], present(file.headers.etag, 'the etag of a static file'))) return { status: 304, headers: { ...file.headers }, bytes: null }
  return { status: 200, headers: { ...file.headers, 'content-length': String(file.body.length) }, bytes: ctx.head ? null : file.body }
}
