import { present } from '@content/platform'
import type { RoutingConfig } from './config-file.js'
import { TYPE_BY_PLURAL } from '@content/api-schema'
import { DEFAULT_ENDPOINTS, DOC_PATHS, KNOWN_FILTERS, MEDIA_PATHS, METHODS, type Method } from './defaults.js'
import { templateSegments, type TemplateSegment } from './path-params.js'
import { NONE, type CompiledRoute, type RouteParams, type RouteRow, type RouteSpec } from './route-types.js'

/**
 * A node of the path trie: one template segment. A node a template ends at has routes by method, possibly
 * none (a path filter enabled for no method: 405 with an empty Allow).
 */
export interface RouteNode<H> {
  readonly literals: Map<string, RouteNode<H>>
  param?: { name: string, node: RouteNode<H> }
  /** a last `{param…}`: the rest of the path, at least `min` segments */
  rest?: { name: string, min: 0 | 1, node: RouteNode<H> }
  /** set when a template ends here */
  routes?: Map<Method, CompiledRoute<H>>
  /** a template through this node, for the MISSING_PARAMETER answer of a path that stops here */
  template?: string
  /** a next segment no child takes: SURPLUS_PATH_SEGMENTS (default), or this answer */
  unknownChild?: { reason: 'UNKNOWN_PATH_FILTER' | 'ENDPOINT_NOT_FOUND', message: (segment: string) => string, details?: (segment: string) => Record<string, unknown> }
}

/** What an endpoint (a first segment) decides for every path below it. */
export interface EndpointPolicy {
  /** blacklisted: 405 with an empty Allow, whatever the rest */
  disabled?: true
  /** the only methods below it, checked before anything else in the path */
  methods?: readonly Method[]
  /** request bodies are file bytes (the files endpoint), whatever the answer */
  rawBody?: true
}

/** The immutable table of one configuration: what the router, the listing, the OpenAPI document and the metrics read. */
export interface RouteTable<H> {
  readonly basePath: string
  readonly baseSegments: readonly string[]
  readonly root: RouteNode<H>
  readonly policies: ReadonlyMap<string, EndpointPolicy>
  /** every route, in table order: the OpenAPI document's operations */
  readonly routes: readonly CompiledRoute<H>[]
  /** the endpoint names the listing shows (blacklisted ones are absent) */
  readonly endpoints: readonly string[]
  readonly writableTypes: readonly string[]
}

/** Methods each custom module answers: one handler for all, or one per method. */
export type CustomMethods = ReadonlyMap<string, readonly Method[] | 'ALL'>

const newNode = <H>(): RouteNode<H> => ({ literals: new Map() })

function child<H> (node: RouteNode<H>, segment: TemplateSegment): RouteNode<H> {
  if (segment.kind === 'literal') {
    let next = node.literals.get(segment.value)
    if (!next) { next = newNode(); node.literals.set(segment.value, next) }
    return next
  }
  if (segment.kind === 'param') {
    node.param ??= { name: segment.name, node: newNode() }
    if (node.param.name !== segment.name) throw new Error(`two parameters at one place: {${node.param.name}} and {${segment.name}}`)
    return node.param.node
  }
  throw new Error('a rest parameter ends its template')
}

/** Places a template in the trie; answers the node it ends at. */
function place<H> (root: RouteNode<H>, path: string, restMin: 0 | 1): RouteNode<H> {
  const segments = templateSegments(path)
  const template = path.replace('…}', '}')
  let node = root
  for (const [i, segment] of segments.entries()) {
    node.template ??= template
    if (segment.kind === 'rest') {
      if (i !== segments.length - 1) throw new Error(`route template ${path}: {${segment.name}…} must come last`)
      node.rest ??= { name: segment.name, min: restMin, node: newNode() }
      node = node.rest.node
    } else {
      node = child(node, segment)
    }
  }
  node.routes ??= new Map()
  node.template ??= template
  return node
}

const UNKNOWN_ENDPOINT = { reason: 'ENDPOINT_NOT_FOUND', message: (s: string) => `unknown endpoint "${s}"` } as const
const NO_DOC_PAGE = { reason: 'ENDPOINT_NOT_FOUND', message: () => 'no documentation page at this path' } as const

/** Where a row lives in this configuration: one place per endpoint serving it. */
interface Placement<H> { endpoint: string, path: string, spec: RouteSpec<H>, fixed: RouteParams }

function placements<H> (row: RouteRow<H>, config: RoutingConfig, customs: CustomMethods): Placement<H>[] {
  const [first = ''] = row.path.split('/').filter(Boolean)
  if (first === '{custom}') {
    return config.customEndpoints
      .filter((name) => { const m = customs.get(name) ?? 'ALL'; return m === 'ALL' || m.includes(row.method) })
      .map((name) => ({ endpoint: name, path: row.path.replace('{custom}', name), spec: row, fixed: NONE }))
  }
  if (config.blacklist.includes(first)) return []
  const here: Placement<H>[] = [{ endpoint: first, path: row.path, spec: row, fixed: row.filter ? { filter: row.filter } : NONE }]
  if (first !== 'objects' || !row.underTypeEndpoints || row.method !== 'GET') return here
  const spec = row.underTypeEndpoints === 'same' ? row : row.underTypeEndpoints
  const under = config.objectTypeEndpoints.map((plural) => ({
    endpoint: plural, path: row.path.replace(/^\/objects/, `/${plural}`), spec, fixed: { ...here[0]?.fixed, objectType: present(TYPE_BY_PLURAL[plural], `the type of ${plural}`) },
  }))
  return [...here, ...under]
}

/**
 * The route table of one configuration (decisions §9): every row placed under the endpoints that serve
 * it (object-type endpoints take the GET rows of `/objects`, custom endpoints their modules' methods),
 * path filters only for the methods they are enabled for, blacklisted endpoints left out.
 */
export function compileRouteTable<H> (rows: readonly RouteRow<H>[], config: RoutingConfig, customs: CustomMethods = new Map()): RouteTable<H> {
  const root = newNode<H>()
  root.unknownChild = UNKNOWN_ENDPOINT
  const routes: CompiledRoute<H>[] = []
  const base = config.basePath
  const enabled = (row: RouteRow<H>) => row.filter === undefined || config.pathFilters[row.method].includes(row.filter)
  for (const row of rows) {
    for (const at of placements(row, config, customs)) {
      const node = place(root, at.path, row.path.startsWith('/{custom}') ? 0 : 1)
      if (!enabled(row)) continue
      // a custom endpoint is documented without its further segments (OpenAPI cannot name a rest of path)
      const path = row.documented ?? (at.path.replace(/\/\{\w+…\}$/, '') || '/')
      const route: CompiledRoute<H> = Object.freeze({
        method: row.method, endpoint: at.endpoint, path, label: path === '/' ? base || '/' : base + path,
        spec: at.spec, fixed: at.fixed === NONE ? NONE : Object.freeze(at.fixed),
        ...(at.endpoint === 'files' ? { rawBody: true as const } : {}),
      })
      if (node.routes?.has(row.method)) throw new Error(`two routes for ${row.method} ${at.path}`)
      node.routes?.set(row.method, route)
      routes.push(route)
    }
  }
  // below an object: a segment that names no path filter is an unknown filter, not a surplus
  const filters = KNOWN_FILTERS.filter((f) => METHODS.some((m) => config.pathFilters[m].includes(f)))
  for (const endpoint of ['objects', ...config.objectTypeEndpoints]) {
    const object = root.literals.get(endpoint)?.param?.node
    if (object) {
      object.unknownChild = {
        reason: 'UNKNOWN_PATH_FILTER',
        message: (s) => `unknown path filter "${s}"; valid filters: ${filters.join(', ')}`,
        details: (s) => ({ filter: s, valid: [...filters] }),
      }
    }
  }
  // below the reference page, what is not a page is not found (its errors page alone takes no more segments)
  const docs = root.literals.get('docs')
  const assets = docs?.literals.get('assets')
  for (const node of [docs, assets, assets?.param?.node]) if (node) node.unknownChild = NO_DOC_PAGE
  const policies = new Map<string, EndpointPolicy>()
  for (const name of config.blacklist) policies.set(name, { disabled: true, ...(name === 'files' ? { rawBody: true } : {}) })
  if (!config.blacklist.includes('files')) policies.set('files', { methods: ['POST'], rawBody: true })
  for (const name of [...MEDIA_PATHS, ...DOC_PATHS]) policies.set(name, { methods: ['GET'] })
  // grouped by endpoint, in the listing's order, then the media and description paths
  const order = ['', ...DEFAULT_ENDPOINTS, ...config.objectTypeEndpoints, ...config.customEndpoints, ...MEDIA_PATHS, ...DOC_PATHS]
  routes.sort((a, b) => order.indexOf(a.endpoint) - order.indexOf(b.endpoint))
  return Object.freeze({
    basePath: base,
    baseSegments: Object.freeze(base.split('/').filter(Boolean)),
    root,
    policies,
    routes: Object.freeze(routes),
    endpoints: Object.freeze([
      ...DEFAULT_ENDPOINTS.filter((n) => !config.blacklist.includes(n)), ...config.objectTypeEndpoints, ...config.customEndpoints,
    ]),
    writableTypes: Object.freeze([...config.writableTypes]),
  })
}
