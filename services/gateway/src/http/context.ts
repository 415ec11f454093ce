import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { ClientGone, PromiseClient } from '@content/platform'
import type { v1 } from '@content/protos'
import type { RouteTable as Table } from '../routing/compile.js'
import type { CompiledRoute, RouteParams } from '../routing/route-types.js'
import type { Caller, TokenClaims } from './auth.js'
import type { RequestInfo } from './envelope.js'
import type { BackendNotes } from './backend-notes.js'
import { HttpError } from './errors.js'
import type { CustomRegistry } from './handlers/custom/index.js'
import type { ThumbnailCache } from './thumbnail-cache.js'
import type { LiveHub } from '../live/live-hub.js'
import type { FormatContext } from './formatters/object.js'
import { canonicalTag } from './formatters/translation.js'
import type { AnswerShape, ListParams } from './query.js'

export type ObjectsClient = PromiseClient<v1.ObjectServiceDefinition, v1.ObjectServiceClient>
export type TreeClient = PromiseClient<v1.TreeServiceDefinition, v1.TreeServiceClient>
export type AuthClient = PromiseClient<v1.AuthServiceDefinition, v1.AuthServiceClient>
export type PosterClient = PromiseClient<v1.PosterServiceDefinition, v1.PosterServiceClient>

/** One gRPC client per backend, created once per process. */
export interface Clients { objects: ObjectsClient, tree: TreeClient, auth: AuthClient, poster: PosterClient }

/** The route table of the configuration in force, its routes answered by this gateway's handlers. */
export type RouteTable = Table<Handler>
export type Route = CompiledRoute<Handler>

/**
 * The route parameters a handler needs, as set by the route that chose it; one missing is a routing bug
 * (an error, not a client's 4xx).
 */
export function routeParams<K extends keyof RouteParams> (ctx: RequestContext, ...names: K[]): Required<Pick<RouteParams, K>> {
  const params = ctx.params
  for (const name of names) {
    if (params[name] === undefined) throw new Error(`route parameter ${name} is missing for ${ctx.route.spec.name}`)
  }
  return params as Required<Pick<RouteParams, K>>
}

/** The paging and filters of a list request; a route that takes none has no list (a routing bug, not a 4xx). */
export function listParams (ctx: RequestContext): ListParams {
  if (ctx.list === undefined) throw new Error(`${ctx.route.spec.name} takes no paging or filters`)
  return ctx.list
}

/** The type an object-type endpoint requires of the object in its path ('' below other endpoints). */
export const pathType = (ctx: RequestContext): string => ctx.params.objectType ?? ''

/** Marks a write body the gateway does not read (→ 415, once routing and the token have spoken: decisions §2), and says why. */
export class UnsupportedBody {
  constructor (readonly message: string) {}
}

/** A body of a content type the gateway does not parse. */
export const UNSUPPORTED_TYPE = new UnsupportedBody('write bodies must be application/json (or text/plain holding JSON)')

/** A JSON body: the text as received, forwarded as it is, and its value for what the gateway itself reads. */
export interface JsonBody { text: string, value: unknown }

export interface RequestContext {
  info: RequestInfo
  route: Route
  /** the parameters of the path, and those the route sets itself */
  params: RouteParams
  /** paging and filters, parsed once, of a request whose route takes them */
  list?: ListParams
  /** how the answer is shaped (decisions §15), of a request whose route takes the grammar */
  shape?: AnswerShape
  caller: Caller
  /** the presented, verified access token */
  token?: string
  claims?: TokenClaims
  /** parsed JSON, undefined when there was none */
  body: unknown
  /** the JSON body's text as received, undefined when there was none */
  bodyText?: string
  /** the unparsed request body of a route that takes file bytes (uploads) */
  rawBody?: Readable
  /** request headers as received */
  headers: IncomingHttpHeaders
  /** a HEAD request (routed and enveloped as GET) */
  head: boolean
  /** the client: gone when it goes away before the answer is complete */
  client: RequestClient
  requestId: string
  clientAddress: string
  /** what the backends' answers said beyond their messages */
  notes: BackendNotes
}

/** Whether a request's client went away, and an AbortSignal of it for the handlers that stream. */
export interface RequestClient extends ClientGone {
  readonly signal: AbortSignal
}

export interface HandlerDeps {
  clients: Clients
  table: RouteTable
  timeZone: string
  customs: CustomRegistry
  now: () => number
  /** deadline of the streaming calls (uploads and downloads take minutes) */
  streamTimeoutMs: number
  thumbnails?: ThumbnailCache
  /** INCLUDE_BUDGET: what include may add to a page at worst (decisions §15); default DEFAULT_INCLUDE_BUDGET */
  includeBudget?: number
  /** the live change streams (decisions §17) */
  live?: LiveHub
}

/**
 * What a handler answers; the dispatcher serializes `body`, adds ETags and sends. A reply with `bytes`
 * (media) is sent as it is, with the handler's headers only: never serialized, no ETag of the
 * dispatcher's; `null` = headers only (HEAD, 304).
 */
export interface Reply { status: number, body?: unknown, headers?: Record<string, string>, bytes?: Buffer | Readable | null }

export type Handler = (ctx: RequestContext, deps: HandlerDeps) => Promise<Reply>

/** Every backend call carries the request id and the caller's own access token, which the backend verifies itself. */
export const callOptions = (ctx: RequestContext) => ({
  requestId: ctx.requestId, userToken: ctx.token, onHeaders: (headers: Record<string, string>) => ctx.notes.observe(headers), clientGone: ctx.client,
})

export const baseUrl = (ctx: RequestContext, deps: HandlerDeps) => ctx.info.origin + deps.table.basePath

/** How objects are shown: absolute URLs, dates in the server's zone, and the language asked for (checked by checkQuery). */
export function formatContext (ctx: RequestContext, deps: HandlerDeps): FormatContext {
  const lang = ctx.info.query.get('lang')
  const tag = lang === null ? null : canonicalTag(lang)
  const fields = ctx.shape?.fields
  const format: FormatContext = { baseUrl: baseUrl(ctx, deps), timeZone: deps.timeZone }
  if (tag !== null) format.lang = tag
  if (fields) format.fields = fields
  return format
}

/** Every write, GET /auth and GET /me need a verified token. */
export function requireCaller (ctx: RequestContext): TokenClaims {
  if (!ctx.claims) throw new HttpError('AUTHENTICATION_REQUIRED', 'this request needs an access token')
  return ctx.claims
}

/**
 * A write body as the client sent it; absent when there was none. The objects service reads its `data`,
 * after checking the caller and the object it names (decisions §2).
 */
export const bodyJson = (ctx: RequestContext): { body_json?: string } => (ctx.bodyText === undefined ? {} : { body_json: ctx.bodyText })

/** The Cache-Control of an answer only its caller may see (drafts, previews): no cache keeps it. */
export const PRIVATE_NO_STORE = 'private, no-store'

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, ...(headers ? { headers } : {}) })
export const noContent = (): Reply => ({ status: 204 })
