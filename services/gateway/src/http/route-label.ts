import { pathOperations } from '../openapi/paths.js'
import type { RouteTable } from '../routing/compile.js'
import { KNOWN_FILTERS } from '../routing/defaults.js'
import type { Resolution } from '../routing/resolve.js'

type Routed = Extract<Resolution, { kind: 'route' }>

/**
 * The route template of a routed request (`/objects/{object_id}/children`), for metrics and span names:
 * bounded by the route table, never the raw path. Taken from the operations the OpenAPI document lists,
 * so both name routes alike; a request is found by handler, endpoint and path filter, through nested maps
 * built once (no key string per request).
 */
export function routeTemplates (table: RouteTable): (route: Routed) => string | undefined {
  const byHandler = new Map<string, Map<string, Map<string, string>>>()
  for (const op of pathOperations(table)) {
    const [endpoint = '', id, filter = ''] = op.path.split('/').filter(Boolean)
    const isFilter = id === '{object_id}' && (KNOWN_FILTERS as readonly string[]).includes(filter)
    let byEndpoint = byHandler.get(op.handler)
    if (byEndpoint === undefined) { byEndpoint = new Map(); byHandler.set(op.handler, byEndpoint) }
    let byFilter = byEndpoint.get(endpoint)
    if (byFilter === undefined) { byFilter = new Map(); byEndpoint.set(endpoint, byFilter) }
    // below a base path the listing is the base path itself
    byFilter.set(isFilter ? filter : '', op.path === '/' ? table.basePath || '/' : table.basePath + op.path)
  }
  return (route) => byHandler.get(route.handler)?.get(route.endpoint)?.get(route.params.filter ?? '')
}
