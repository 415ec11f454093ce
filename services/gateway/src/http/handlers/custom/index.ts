import { METHODS, type Method } from '../../../routing/defaults.js'
import type { CustomEndpointModule } from './custom-endpoint.js'
import { echoEndpoint } from './echo.endpoint.js'

export type { CustomEndpointModule, CustomHandler, CustomRequest } from './custom-endpoint.js'

export type CustomRegistry = ReadonlyMap<string, CustomEndpointModule>

/** Modules the config file may enable by name (`customEndpoints: [echo]`). */
export const BUILT_IN_CUSTOM_ENDPOINTS: CustomRegistry = new Map([[echoEndpoint.name, echoEndpoint]])

/** Methods each module answers, for the route table. */
export function customMethods (registry: CustomRegistry): Map<string, readonly Method[] | 'ALL'> {
  return new Map([...registry].map(([name, mod]) => [
    name, 'all' in mod ? 'ALL' as const : METHODS.filter((m) => mod.methods[m] !== undefined),
  ]))
}
