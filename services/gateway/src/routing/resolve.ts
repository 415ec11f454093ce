import { present } from '@content/platform'
import type { EndpointSpec, RouteTable } from './compile.js'
import { DOC_PATHS, KNOWN_FILTERS, MEDIA_PATHS, METHODS, type FilterName, type Method } from './defaults.js'

export type HandlerKey =
  | 'listing' | 'auth.login' | 'auth.status' | 'auth.revoke' | 'me' | 'poster'
  | 'objects.list' | 'objects.get' | 'objects.save' | 'objects.delete' | 'type.list' | 'type.get'
  | 'tree.list' | 'children.save' | 'children.get' | 'children.update' | 'children.remove'
  | 'relations.summary' | 'relations.list' | 'relations.save' | 'relations.get' | 'relations.replace'
  | 'relations.delete' | 'custom' | 'files.upload' | 'media.original' | 'media.thumbnail'
  | 'docs.openapi' | 'docs.page' | 'docs.errors' | 'docs.asset'

export interface RouteParams {
  /** canonical digits or a nickname */
  objectId?: string
  filter?: FilterName
  relationName?: string
  relatedId?: number
  childId?: number
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

/** `rawBody`: the request body is a file's bytes, streamed to the backend and never parsed. */
export type Resolution =
  | { kind: 'route', endpoint: string, handler: HandlerKey, params: RouteParams, rawBody?: true }
  | { kind: 'error', status: 400 | 404 | 405, reason: string, message: string, allow?: Method[], details?: Record<string, unknown>, rawBody?: true }

type RouteError = Extract<Resolution, { kind: 'error' }>
/** Methods a path shape answers, each with its handler. */
type Shape = Partial<Record<Method, HandlerKey>>

const MAX_ID = Number.MAX_SAFE_INTEGER
const DIGITS = /^[0-9]+$/

const fail = (status: RouteError['status'], reason: string, message: string, extra: Partial<RouteError> = {}): RouteError =>
  ({ kind: 'error', status, reason, message, ...extra })

const notAllowed = (method: string, allow: Method[]): RouteError =>
  fail(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`, { allow })

/** `{object_id}`: all digits → an id (1 … 2^53−1), anything else → a nickname. */
export function parseObjectId (raw: string): string | RouteError {
  if (!DIGITS.test(raw)) return raw
  const id = Number(raw)
  if (id === 0 || id > MAX_ID) return fail(400, 'INVALID_OBJECT_ID', `object id ${raw} is out of range (1 to ${MAX_ID})`)
  return String(id)
}

/** `{related_id}` / `{child_id}`: positive integers only. */
function parsePositiveInt (raw: string, name: string): number | RouteError {
  const id = DIGITS.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(id) || id <= 0) return fail(400, 'INVALID_PARAMETER', `${name} must be a positive integer`, { details: { parameter: name } })
  return id
}

function pick (method: string, shape: Shape, route: (handler: HandlerKey) => Resolution, enabled?: ReadonlySet<Method>): Resolution {
  const allow = METHODS.filter((m) => shape[m] !== undefined && (!enabled || enabled.has(m)))
  const handler = (allow as string[]).includes(method) ? shape[method as Method] : undefined
  return handler ? route(handler) : notAllowed(method, allow)
}

const surplus = (segments: string[]): RouteError =>
  fail(400, 'SURPLUS_PATH_SEGMENTS', `unexpected path segments: /${segments.join('/')}`)

/** Methods for which `filter` is enabled. */
function enabledMethods (table: RouteTable, filter: FilterName): Set<Method> {
  return new Set(METHODS.filter((m) => table.filters[m].has(filter)))
}

/** `/objects/{id}/{filter}/…`: which shape the remaining segments have, and the ids in it. */
function filterShape (filter: FilterName, rest: string[]): { shape: Shape, params: RouteParams } | RouteError {
  if (filter === 'relations') {
    if (rest.length === 0) return { shape: { GET: 'relations.summary' }, params: {} }
    if (rest.length === 1) return { shape: { GET: 'relations.list', POST: 'relations.save' }, params: { relationName: present(rest[0], 'the relation name segment') } }
    if (rest.length > 2) return surplus(rest.slice(2))
    const relatedId = parsePositiveInt(present(rest[1], 'the related_id segment'), 'related_id')
    if (typeof relatedId !== 'number') return relatedId
    return { shape: { GET: 'relations.get', PUT: 'relations.replace', DELETE: 'relations.delete' }, params: { relationName: present(rest[0], 'the relation name segment'), relatedId } }
  }
  if (filter === 'children') {
    if (rest.length === 0) return { shape: { GET: 'tree.list', POST: 'children.save' }, params: {} }
    if (rest.length > 1) return surplus(rest.slice(1))
    const childId = parsePositiveInt(present(rest[0], 'the child_id segment'), 'child_id')
    if (typeof childId !== 'number') return childId
    return { shape: { GET: 'children.get', PUT: 'children.update', DELETE: 'children.remove' }, params: { childId } }
  }
  if (rest.length > 0) return surplus(rest)
  return { shape: { GET: 'tree.list' }, params: {} }
}

/** `{id}` and `{id}/{filter}/…` below `objects` or an object-type endpoint. */
function objectPath (table: RouteTable, method: string, endpoint: string, segments: string[], base: RouteParams, single: Shape, getOnly: boolean): Resolution {
  const objectId = parseObjectId(present(segments[0], 'the object id segment'))
  if (typeof objectId !== 'string') return objectId
  const params: RouteParams = { ...base, objectId }
  if (segments.length === 1) return pick(method, single, (handler) => ({ kind: 'route', endpoint, handler, params }))
  const name = present(segments[1], 'the path filter segment')
  if (!(KNOWN_FILTERS as readonly string[]).includes(name)) {
    const valid = KNOWN_FILTERS.filter((f) => enabledMethods(table, f).size > 0)
    return fail(400, 'UNKNOWN_PATH_FILTER', `unknown path filter "${name}"; valid filters: ${valid.join(', ')}`, { details: { filter: name, valid } })
  }
  const filter = name as FilterName
  const shaped = filterShape(filter, segments.slice(2))
  if ('kind' in shaped) return shaped
  const enabled = enabledMethods(table, filter)
  if (getOnly) enabled.forEach((m) => { if (m !== 'GET') enabled.delete(m) })
  return pick(method, shaped.shape, (handler) => ({ kind: 'route', endpoint, handler, params: { ...params, ...shaped.params, filter } }), enabled)
}

function defaultEndpoint (table: RouteTable, method: string, name: string, rest: string[]): Resolution {
  const route = (params: RouteParams = {}) => (handler: HandlerKey): Resolution => ({ kind: 'route', endpoint: name, handler, params })
  switch (name) {
    case 'files':
      return filesEndpoint(method, rest)
    case 'auth':
      if (rest.length === 0) return pick(method, { GET: 'auth.status', POST: 'auth.login' }, route())
      if (rest.length > 1) return surplus(rest.slice(1))
      return pick(method, { DELETE: 'auth.revoke' }, route({ refreshToken: present(rest[0], 'the refresh token segment') }))
    case 'me':
      return rest.length > 0 ? surplus(rest) : pick(method, { GET: 'me' }, route())
    case 'poster': {
      if (rest.length === 0) return fail(400, 'MISSING_PARAMETER', 'an object id is required: /poster/{object_id}')
      if (rest.length > 1) return surplus(rest.slice(1))
      const objectId = parseObjectId(present(rest[0], 'the object id segment'))
      return typeof objectId === 'string' ? pick(method, { GET: 'poster' }, route({ objectId })) : objectId
    }
    default:
      if (rest.length === 0) return pick(method, { GET: 'objects.list', POST: 'objects.save' }, route())
      return objectPath(table, method, name, rest, {}, { GET: 'objects.get', DELETE: 'objects.delete' }, false)
  }
}

/** The endpoint whose request bodies are file bytes (decisions §12). */
export const UPLOAD_ENDPOINT = 'files'

/** `/files/{object_type}/{file_name}`: POST only, whatever follows `files`. */
function filesEndpoint (method: string, rest: string[]): Resolution {
  if (method !== 'POST') return notAllowed(method, ['POST'])
  if (rest.length < 2) {
    const parameter = rest.length === 0 ? 'object_type' : 'file_name'
    return fail(400, 'MISSING_PARAMETER', `${parameter} is required: /files/{object_type}/{file_name}`, { details: { parameter } })
  }
  const [objectType = '', fileName = '', ...more] = rest
  if (more.length > 0) return surplus(more)
  return { kind: 'route', endpoint: UPLOAD_ENDPOINT, handler: 'files.upload', params: { objectType, fileName } }
}

type MediaPath = typeof MEDIA_PATHS[number]
const isMediaPath = (name: string): name is MediaPath => (MEDIA_PATHS as readonly string[]).includes(name)

/** `/media/{object_id}/{file_name}` and `/thumbnails/{path…}`: GET (and HEAD) only. */
function mediaPath (method: string, name: MediaPath, rest: string[]): Resolution {
  if (method !== 'GET') return notAllowed(method, ['GET'])
  if (name === 'thumbnails') {
    if (rest.length === 0) return fail(400, 'MISSING_PARAMETER', 'a thumbnail path is required: /thumbnails/{path}', { details: { parameter: 'path' } })
    return { kind: 'route', endpoint: name, handler: 'media.thumbnail', params: { rest } }
  }
  if (rest.length < 2) {
    const parameter = rest.length === 0 ? 'object_id' : 'file_name'
    return fail(400, 'MISSING_PARAMETER', `${parameter} is required: /media/{object_id}/{file_name}`, { details: { parameter } })
  }
  const [rawId = '', fileName = '', ...more] = rest
  if (more.length > 0) return surplus(more)
  const objectId = parseObjectId(rawId)
  if (typeof objectId !== 'string') return objectId
  return { kind: 'route', endpoint: name, handler: 'media.original', params: { objectId, fileName } }
}

type DocPath = typeof DOC_PATHS[number]
const isDocPath = (name: string): name is DocPath => (DOC_PATHS as readonly string[]).includes(name)

/** `/openapi.json`, `/docs`, `/docs/errors` and `/docs/assets/{file}`: GET (and HEAD) only. */
function docPath (method: string, name: DocPath, rest: string[]): Resolution {
  if (method !== 'GET') return notAllowed(method, ['GET'])
  const route = (handler: HandlerKey, params: RouteParams = {}): Resolution => ({ kind: 'route', endpoint: name, handler, params })
  if (name === 'openapi.json') return rest.length === 0 ? route('docs.openapi') : surplus(rest)
  if (rest.length === 0) return route('docs.page')
  if (rest[0] === 'errors') return rest.length === 1 ? route('docs.errors') : surplus(rest.slice(1))
  if (rest[0] === 'assets' && rest.length === 2) return route('docs.asset', { asset: present(rest[1], 'the asset segment') })
  return fail(404, 'ENDPOINT_NOT_FOUND', 'no documentation page at this path')
}

function endpointRoute (table: RouteTable, method: string, spec: EndpointSpec, rest: string[]): Resolution {
  if (spec.kind === 'default') return defaultEndpoint(table, method, spec.name, rest)
  if (spec.kind === 'custom') {
    const allowed = spec.methods === 'ALL' ? [...METHODS] : [...spec.methods]
    return pick(method, Object.fromEntries(allowed.map((m) => [m, 'custom'])), (handler) => ({ kind: 'route', endpoint: spec.name, handler, params: { rest } }))
  }
  const base = { objectType: spec.objectType }
  if (rest.length === 0) return pick(method, { GET: 'type.list' }, (handler) => ({ kind: 'route', endpoint: spec.name, handler, params: base }))
  return objectPath(table, method, spec.name, rest, base, { GET: 'type.get' }, true)
}

/**
 * The whole routing decision, pure: decoded path segments (empty ones dropped) and a method in,
 * a handler with its params or the 400/404/405 to answer out. HEAD is routed as GET.
 */
export function resolve (table: RouteTable, rawMethod: string, segments: readonly string[]): Resolution {
  const method = rawMethod.toUpperCase() === 'HEAD' ? 'GET' : rawMethod.toUpperCase()
  const base = table.baseSegments
  if (base.some((segment, i) => segments[i] !== segment)) return fail(404, 'ENDPOINT_NOT_FOUND', 'no endpoint at this path')
  const path = segments.slice(base.length)
  if (path.length === 0) return pick(method, { GET: 'listing' }, (handler) => ({ kind: 'route', endpoint: '', handler, params: {} }))
  const name = present(path[0], 'the endpoint segment')
  if (isMediaPath(name)) return mediaPath(method, name, path.slice(1))
  if (isDocPath(name)) return docPath(method, name, path.slice(1))
  const resolution = table.blacklist.has(name)
    ? fail(405, 'METHOD_NOT_ALLOWED', `endpoint "${name}" is disabled`, { allow: [] })
    : endpoint(table, method, name, path.slice(1))
  // whatever the answer, a body sent to the files endpoint is file bytes: never parse it
  return name === UPLOAD_ENDPOINT ? { ...resolution, rawBody: true } : resolution
}

function endpoint (table: RouteTable, method: string, name: string, rest: string[]): Resolution {
  const spec = table.endpoints.get(name)
  if (!spec) return fail(404, 'ENDPOINT_NOT_FOUND', `unknown endpoint "${name}"`)
  return endpointRoute(table, method, spec, rest)
}
