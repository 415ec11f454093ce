import type { RouteTable } from './compile.js'

/** Base-address listing: every available endpoint name → its absolute URL, keys sorted. */
export function endpointListing (table: RouteTable, origin: string): Record<string, string> {
  const listing: Record<string, string> = {}
  for (const name of [...table.endpoints.keys()].sort()) listing[name] = `${origin}${table.basePath}/${name}`
  return listing
}
