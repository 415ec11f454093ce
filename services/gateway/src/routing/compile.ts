import type { RoutingConfig } from './config-file.js'
import { DEFAULT_ENDPOINTS, METHODS, TYPE_BY_PLURAL, type DefaultEndpoint, type FilterName, type Method } from './defaults.js'

export type EndpointSpec =
  | { readonly kind: 'default', readonly name: DefaultEndpoint }
  | { readonly kind: 'object-type', readonly name: string, readonly objectType: string }
  | { readonly kind: 'custom', readonly name: string, readonly methods: readonly Method[] | 'ALL' }

/** The immutable table resolve() reads. */
export interface RouteTable {
  readonly basePath: string
  readonly baseSegments: readonly string[]
  /** available endpoints by name (blacklisted ones are absent) */
  readonly endpoints: ReadonlyMap<string, EndpointSpec>
  readonly blacklist: ReadonlySet<string>
  readonly filters: Readonly<Record<Method, ReadonlySet<FilterName>>>
  readonly writableTypes: readonly string[]
}

/** Methods each custom module answers: one handler for all, or one per method. */
export type CustomMethods = ReadonlyMap<string, readonly Method[] | 'ALL'>

export function compileRouteTable (config: RoutingConfig, customMethods: CustomMethods = new Map()): RouteTable {
  const blacklist = new Set(config.blacklist)
  const endpoints = new Map<string, EndpointSpec>()
  for (const name of DEFAULT_ENDPOINTS) if (!blacklist.has(name)) endpoints.set(name, Object.freeze({ kind: 'default', name }))
  for (const name of config.objectTypeEndpoints) {
    const objectType = TYPE_BY_PLURAL[name]
    if (objectType) endpoints.set(name, Object.freeze({ kind: 'object-type', name, objectType }))
  }
  for (const name of config.customEndpoints) {
    endpoints.set(name, Object.freeze({ kind: 'custom', name, methods: customMethods.get(name) ?? 'ALL' }))
  }
  const filters = {} as Record<Method, ReadonlySet<FilterName>>
  for (const method of METHODS) filters[method] = new Set(config.pathFilters[method])
  return Object.freeze({
    basePath: config.basePath,
    baseSegments: Object.freeze(config.basePath.split('/').filter(Boolean)),
    endpoints,
    blacklist,
    filters: Object.freeze(filters),
    writableTypes: Object.freeze([...config.writableTypes]),
  })
}
