import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { REQUEST_ID_HEADER, acceptedRequestId, nameActiveSpan } from '@content/platform'
import { LRUCache } from 'lru-cache'
import { BackendNotes } from './backend-notes.js'
import type { HandlerDeps, Reply, RequestContext } from './context.js'
import { learnedHeaders, mayReplay, signatureOf } from './lane-signature.js'
import type { AccessLog } from './access-log.js'
import { observeRequest } from './request-metrics.js'
import { ResponseClient } from './response-client.js'
import { serialized } from './shared-replies.js'

/** What the full path answered a read with, which its handler may answer again for the same signature. */
export interface LearnedRun {
  /** the context the full path built (its route's template names the metrics and the trace span); each rerun gets a copy with its own id, headers, notes and client */
  ctx: RequestContext
  /** every header of the answer but the ETag, the Content-Length and the request id */
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>
  /** when the request's access token expires (ms since the epoch); none for an anonymous request */
  expires?: number
}

/** The context of a learned read: what the full path decided, without what belongs to the one request that taught it. */
type Template = Pick<RequestContext, 'info' | 'route' | 'params' | 'list' | 'shape' | 'caller' | 'token' | 'claims' | 'clientAddress'>

interface Learned {
  ctx: Template
  expires: number
  flat: string[]
}

/** What the lane began for a request it handed to the full path: the id its backend calls carried, and the handler's outcome. */
export interface HandedOver {
  requestId: string
  outcome: { reply: Reply } | { error: unknown }
}

/** A reply the lane writes itself: the full path would only add an ETag to it. */
export const plain = (reply: Reply): boolean =>
  reply.status === 200 && reply.headers === undefined && reply.bytes === undefined && reply.body !== undefined

/**
 * The rerun lane, in front of fastify when the read cache is off: a GET the full path answered 200 with
 * a plain JSON body is answered again, for the same signature, by the same route handler with a copy of
 * the context the full path built (route, parameters, query checks, caller and token), so the request
 * skips fastify, the routing and the checks, and keeps the backend call, the formatting and the ETag of
 * its own answer. Anything but a plain 200 (an error, a missing object, an answer with headers of its
 * own) is handed to the full path with the handler's outcome, which the full path answers without
 * calling the backend again (dispatch.ts), logging and counting it as it does every answer. An expired
 * token, an API key (whose revocation the full path checks), a conditional or a HEAD always take the
 * full path.
 */
export class RerunLane {
  private readonly learned: LRUCache<string, Learned>
  private readonly handed = new WeakMap<IncomingMessage, HandedOver>()
  private open = false

  constructor (private readonly deps: HandlerDeps, maxSignatures: number, private readonly now: () => number = Date.now, private readonly access: AccessLog = () => {}) {
    this.learned = new LRUCache({ max: maxSignatures })
  }

  /** Serves only while true: off while the app starts or closes. */
  set serving (on: boolean) { this.open = on }

  /** Called by the full path for a read whose route may be answered again by its handler, answered 200 with a plain body. */
  learn (req: IncomingMessage, run: LearnedRun): void {
    if (!this.open || !mayReplay(req)) return
    const c = run.ctx
    // what the full path decided of the request: a read has no body; HEAD never comes here
    const ctx: Template = { info: c.info, route: c.route, params: c.params, list: c.list, shape: c.shape, caller: c.caller, token: c.token, claims: c.claims, clientAddress: c.clientAddress }
    this.learned.set(signatureOf(req), {
      ctx, expires: run.expires ?? Number.POSITIVE_INFINITY, flat: learnedHeaders(run.headers),
    })
  }

  /** Takes the request and says true (answering it, or handing it to `fullPath`), or says false and leaves it untouched. */
  serve (req: IncomingMessage, res: ServerResponse, fullPath: (req: IncomingMessage, res: ServerResponse) => void): boolean {
    if (!this.open || !mayReplay(req)) return false
    const learned = this.learned.get(signatureOf(req))
    // the verifier's own rule: a token is expired from its `exp` on
    if (learned === undefined || this.now() >= learned.expires) return false
    void this.rerun(req, res, learned, fullPath)
    return true
  }

  /** What the lane began for a request it handed to the full path, if it did. */
  handedOver (req: IncomingMessage): HandedOver | undefined {
    return this.handed.get(req)
  }

  private async rerun (req: IncomingMessage, res: ServerResponse, learned: Learned, fullPath: (req: IncomingMessage, res: ServerResponse) => void): Promise<void> {
    const started = performance.now()
    const t = learned.ctx
    const route = t.route.label
    nameActiveSpan('GET', route)
    const requestId = acceptedRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID()
    // a literal: a spread of the template and these costs about ten microseconds on Node 20, a tenth of the request
    const ctx: RequestContext = {
      info: t.info, route: t.route, params: t.params, list: t.list, shape: t.shape, caller: t.caller, token: t.token, claims: t.claims, clientAddress: t.clientAddress,
      body: undefined, head: false, requestId, headers: req.headers, notes: new BackendNotes(), client: new ResponseClient(res),
    }
    let outcome: HandedOver['outcome']
    try {
      const reply = await t.route.spec.handler(ctx, this.deps)
      const { json, etag } = plain(reply) ? serialized(reply, true) : {}
      if (json !== undefined && etag !== undefined) {
        const bytes = Buffer.byteLength(json)
        res.writeHead(200, [...learned.flat, 'etag', etag, 'content-length', String(bytes), REQUEST_ID_HEADER, requestId])
        res.end(json)
        const ms = performance.now() - started
        observeRequest(route, 'GET', 200, ms / 1000)
        this.access({ reqId: requestId, method: 'GET', url: req.url ?? '', status: 200, ms, bytes })
        return
      }
      outcome = { reply }
    } catch (error) {
      outcome = { error }
    }
    this.handed.set(req, { requestId, outcome })
    fullPath(req, res)
  }
}
