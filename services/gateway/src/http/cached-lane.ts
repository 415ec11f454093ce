import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { REQUEST_ID_HEADER, acceptedRequestId, nameActiveSpan } from '@content/platform'
import { LRUCache } from 'lru-cache'
import { learnedHeaders, mayReplay, signatureOf } from './lane-signature.js'
import type { ReadCache } from './read-cache.js'
import type { AccessLog } from './access-log.js'
import { observeRequest } from './request-metrics.js'

/** What the full path answered a request with when its answer came from the read cache. */
export interface LearnedRead {
  /** the read cache key the answer lives under */
  key: string
  /** the route template, for the metrics and the trace span */
  route: string
  /** every header of the answer but those of the entry (ETag, Content-Length) and the request id */
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>
  /** when the request's access token expires (ms since the epoch); none for an anonymous request */
  expires?: number
}

interface Learned {
  key: string
  route: string
  expires: number
  /** the headers as a flat name, value list, ready for writeHead */
  flat: string[]
}

/**
 * The cached lane: a GET the gateway has already answered from its read cache is answered again before
 * fastify sees it, with the same bytes and headers, from the same cache entry. The full path decides
 * everything (route, query checks, caller, cacheability, headers) and teaches the lane the outcome for
 * the request's exact signature; the lane only replays it while the entry is served and the caller's
 * access token has not expired, so an invalidated or bypassed entry or an expired token sends the request
 * back to the full path. Requests with anything the lane does not replay (an API key, whose revocation the
 * full path checks, a conditional, HEAD) always take the full path.
 */
export class CachedLane {
  private readonly learned: LRUCache<string, Learned>
  private open = false

  constructor (private readonly cache: ReadCache, maxSignatures: number, private readonly now: () => number = Date.now, private readonly access: AccessLog = () => {}) {
    this.learned = new LRUCache({ max: maxSignatures })
  }

  /** Serves only while true: off while the app starts or closes. */
  set serving (on: boolean) { this.open = on }

  /** Called by the full path for a GET it answered from the read cache, anonymously or with an access token. */
  learn (req: IncomingMessage, read: LearnedRead): void {
    if (!this.open || !mayReplay(req)) return
    this.learned.set(signatureOf(req), { key: read.key, route: read.route, expires: read.expires ?? Number.POSITIVE_INFINITY, flat: learnedHeaders(read.headers) })
  }

  /** Answers the request and says true, or says false and leaves it untouched for the full path. */
  serve (req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.open || !mayReplay(req)) return false
    const learned = this.learned.get(signatureOf(req))
    // the verifier's own rule: a token is expired from its `exp` on
    if (learned === undefined || this.now() >= learned.expires) return false
    const entry = this.cache.hit(learned.key)
    if (entry === undefined) return false
    const started = performance.now()
    nameActiveSpan('GET', learned.route)
    const id = acceptedRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID()
    res.writeHead(200, [...learned.flat, 'etag', entry.etag, 'content-length', String(entry.body.length), REQUEST_ID_HEADER, id])
    res.end(entry.body)
    const ms = performance.now() - started
    observeRequest(learned.route, 'GET', 200, ms / 1000)
    this.access({ reqId: id, method: 'GET', url: req.url ?? '', status: 200, ms, bytes: entry.body.length })
    return true
  }
}
