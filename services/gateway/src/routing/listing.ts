import type { RouteTable } from './compile.js'
import { DOC_PATHS } from './defaults.js'

/** Base-address listing: every available endpoint name, then the API description's pages → absolute URL, keys sorted. */
export function endpointListing (table: RouteTable<unknown>, origin: string): Record<string, string> {
  const listing: Record<string, string> = {}
  for (const name of [...table.endpoints, ...DOC_PATHS].sort()) listing[name] = `${origin}${table.basePath}/${name}`
  return listing
}
