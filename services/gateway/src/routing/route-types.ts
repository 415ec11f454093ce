import type { ListKind } from '@content/api-schema'
import { httpStatusOf, type ErrorCode } from '@content/api-schema'
import type { Operation } from '../openapi/operations.js'
import type { FilterName, Method } from './defaults.js'

/** The name of an operation: what tests and the one-call rule speak of; metrics use the path template. */
export type RouteName =
  | 'listing' | 'auth.login' | 'auth.status' | 'auth.revoke' | 'me' | 'poster'
  | 'objects.list' | 'objects.get' | 'objects.save' | 'objects.delete' | 'type.list' | 'type.get'
  | 'tree.list' | 'children.save' | 'children.get' | 'children.update' | 'children.remove'
  | 'relations.summary' | 'relations.list' | 'relations.save' | 'relations.get' | 'relations.replace'
  | 'relations.delete' | 'custom' | 'files.upload' | 'media.original' | 'media.thumbnail'
  | 'docs.openapi' | 'docs.page' | 'docs.errors' | 'docs.asset'
  | 'trash.list' | 'trash.restore' | 'trash.purge'
  | 'preview.create' | 'preview.get'
  | 'revisions.list' | 'revisions.get' | 'revisions.restore'
  | 'changes.stream' | 'changes.ticket'

/** Everything the gateway knows of one kind of request but its paths. `H` is the handler's type. */
export interface RouteSpec<H> {
  name: RouteName
  handler: H
  /** the query parameters it accepts (others are 400); absent: not checked (other writes, custom modules) */
  accepts?: readonly string[]
  /** the query parameters its handler checks itself (live streams: INVALID_PARAMETER), for its documentation */
  ownQuery?: readonly string[]
  /** that check, run where `accepts` is checked: a malformed request is a 400 before a bad token's 401 (decisions §2) */
  checkOwnQuery?: (query: URLSearchParams) => void
  /** the query grammar of decisions §15 it takes beside `accepts`, for this kind of list (or the single read) */
  grammar?: ListKind
  /** a read whose whole answer depends only on the objects service's data and the caller's groups */
  cacheable?: true
  /** a write that changes nothing a cached read shows: it leaves the read cache alone */
  keepsReadCache?: true
  /** what it takes and answers: the source of its OpenAPI operation */
  operation: Operation
}

/**
 * One row of the route table: a method and a path template below the base path, and what answers them.
 * A template is literal segments and `{param}`s (see PATH_PARAMS); a last `{param…}` takes the rest of
 * the path (one segment at least, none for custom endpoints).
 */
export interface RouteRow<H> extends RouteSpec<H> {
  method: Method
  path: string
  /** the row is a path filter's: it exists for the methods the configuration enables the filter for */
  filter?: FilterName
  /** an `/objects` row served under object-type endpoints too (GET only): as itself, or as another operation */
  underTypeEndpoints?: 'same' | RouteSpec<H>
  /** the path its documentation and metrics name, where the routed template cannot be written in OpenAPI */
  documented?: string
}

/** Parameters of a routed request, as handlers read them. */
export interface RouteParams {
  /** canonical digits or a nickname */
  objectId?: string
  filter?: FilterName
  relationName?: string
  relatedId?: number
  childId?: number
  /** a revision number (decisions §16) */
  revision?: number
  refreshToken?: string
  /** below an object-type endpoint: the type the object must have; uploads: the type named, unchecked */
  objectType?: string
  /** uploads and originals: the decoded file name segment */
  fileName?: string
  /** custom endpoints and thumbnails: the segments after the endpoint name */
  rest?: string[]
  /** reference page assets: the file name */
  asset?: string
}

/** The parameters of a route that fixes none: shared, never changed. */
export const NONE: RouteParams = Object.freeze({})

/** A route of the configuration in force: a row placed under its endpoint, with what it fixes itself. */
export interface CompiledRoute<H> {
  readonly method: Method
  /** the endpoint name (the first segment below the base path; '' for the listing) */
  readonly endpoint: string
  /** the documented path below the base path: the OpenAPI document's key */
  readonly path: string
  /** the documented path with the base path: the route's metric label and span name */
  readonly label: string
  readonly spec: RouteSpec<H>
  /** parameters set by the route itself (an object-type endpoint's type, a path filter) */
  readonly fixed: RouteParams
  /** the request body is a file's bytes, streamed to the backend and never parsed */
  readonly rawBody?: true
}

/** A routed request: its route, and the parameters read from the path. */
export interface RouteMatch<H> {
  kind: 'route'
  route: CompiledRoute<H>
  params: RouteParams
  rawBody?: true
}

export interface RouteError {
  kind: 'error'
  status: number
  reason: ErrorCode
  message: string
  allow?: Method[]
  details?: Record<string, unknown>
  /** a body sent to the files endpoint is file bytes, whatever the answer: never parse it */
  rawBody?: true
}

export type Resolution<H> = RouteMatch<H> | RouteError

export const routeError = (reason: ErrorCode, message: string, extra: Pick<RouteError, 'allow' | 'details'> = {}): RouteError =>
  ({ kind: 'error', status: httpStatusOf(reason), reason, message, ...extra })
