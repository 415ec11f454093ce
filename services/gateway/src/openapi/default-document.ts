import { createRequire } from 'node:module'
import { BUILT_IN_CUSTOM_ENDPOINTS } from '../http/handlers/custom/index.js'
import { compileRoutes } from '../http/route-table.js'
import { loadRoutingConfig } from '../routing/config-file.js'
import { openapiDocument } from './document.js'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }

/**
 * The document `GET /openapi.json` serves with no configuration file, built without a running system:
 * what the typed client is generated from.
 */
export function defaultOpenapiDocument (): Record<string, unknown> {
  const routing = loadRoutingConfig(undefined, new Set(BUILT_IN_CUSTOM_ENDPOINTS.keys()))
  return openapiDocument(compileRoutes(routing), { version })
}
