import { createClient, type Logger } from '@content/platform'
import { testIdentity } from '@content/platform/testing'
import { loadContentProtos, type v1 } from '@content/protos'
import type { FastifyInstance } from 'fastify'
import { buildApp, type GatewaySettings } from '../../src/http/app.js'
import type { Clients } from '../../src/http/context.js'
import { BUILT_IN_CUSTOM_ENDPOINTS } from '../../src/http/handlers/custom/index.js'
import { validateRoutingConfig } from '../../src/routing/config-file.js'
import type { FakeBackends } from './fake-backends.js'
import { ISSUER, SECRET } from './tokens.js'

export function clientsFor (address: string): Clients {
  const pkg = loadContentProtos().content.v1
  const s = { timeoutMs: 2000, identity: testIdentity('gateway').identity }
  return {
    objects: createClient<v1.ObjectServiceDefinition, v1.ObjectServiceClient>(pkg.ObjectService, address, s),
    tree: createClient<v1.TreeServiceDefinition, v1.TreeServiceClient>(pkg.TreeService, address, s),
    auth: createClient<v1.AuthServiceDefinition, v1.AuthServiceClient>(pkg.AuthService, address, s),
    poster: createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(pkg.PosterService, address, s),
  }
}

export interface TestAppOptions {
  routing?: Record<string, unknown>
  settings?: Partial<GatewaySettings>
  readiness?: { objects: string, auth: string }
  now?: () => number
  /** where the gateway logs (default: its own logger on stdout, at settings.logLevel) */
  logger?: Logger
}

/** The gateway wired to the fake backends; close() also closes the clients. */
export async function buildTestApp (backends: FakeBackends, options: TestAppOptions = {}): Promise<FastifyInstance> {
  const clients = clientsFor(backends.address)
  const app = await buildApp({
    settings: {
      timeZone: 'UTC', jwt: { secret: SECRET, issuer: ISSUER, algorithm: 'HS256' }, trustProxy: false,
      readCache: false, readCacheMaxEntries: 100, logLevel: 'silent', healthTimeoutMs: 500,
      streamTimeoutMs: 10_000, thumbnailCacheBytes: 0, thumbnailCacheTtl: 30, ...options.settings,
    },
    routing: validateRoutingConfig(options.routing ?? {}, new Set(BUILT_IN_CUSTOM_ENDPOINTS.keys())),
    clients,
    readiness: options.readiness ?? { objects: backends.address, auth: backends.address },
    // a resume that hangs (a replaced WatchChanges that never answers) bypasses the cache after 200 ms
    watch: { minBackoffMs: 20, maxBackoffMs: 100, resumeGraceMs: 200 },
    ...(options.now ? { now: options.now } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  })
  app.addHook('onClose', async () => { for (const c of Object.values(clients)) c.close() })
  return app
}
