import { baseEnv, grpcServerEnv, identityEnv, metricsEnv, bool, loadConfig, port, previewKey, requireStoreUrl, storeEnv, STORE_KINDS, type StoreKind } from '@content/platform'
import { z } from 'zod'

const seconds = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback)
const DAY = 86_400

/**
 * Where the accounts and refresh tokens live: STORE, or ACCOUNTS_STORE for this service alone (auth on
 * PostgreSQL beside an objects service on SQLite). What `admin migrate` reads too.
 */
const storeShape = {
  DATA_DIR: z.string().default('./data'),
  ...storeEnv,
  ACCOUNTS_STORE: z.enum(STORE_KINDS).optional(),
  /** When set, refresh-token state lives in Redis; otherwise in the accounts' store (auth.sqlite with MongoDB). */
  REDIS_URL: z.string().optional(),
}
interface StoreFields {
  STORE: StoreKind
  ACCOUNTS_STORE?: StoreKind | undefined
  DATABASE_URL?: string | undefined
  MONGODB_URL?: string | undefined
}
/** The URL the chosen store needs, then STORE as the accounts' store. */
const resolved = <T extends StoreFields> (schema: z.ZodType<T>) => schema.superRefine((env, ctx) => {
  requireStoreUrl(env.ACCOUNTS_STORE ?? env.STORE, env, ctx, env.ACCOUNTS_STORE ? 'ACCOUNTS_STORE' : 'STORE')
}).transform((env) => ({ ...env, STORE: env.ACCOUNTS_STORE ?? env.STORE }))

export const authStoreEnv = resolved(z.object(storeShape))
export type AuthStoreConfig = z.infer<typeof authStoreEnv>

export const authEnv = resolved(z.object({
  ...baseEnv,
  ...grpcServerEnv,
  ...identityEnv,
  ...metricsEnv,
  GRPC_PORT: port(50052),
  ...storeShape,
  ACCESS_TOKEN_TTL: seconds(600, DAY),
  REFRESH_TOKEN_TTL: seconds(30 * DAY, 365 * DAY),
  REFRESH_ROTATION: bool(true),
  REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  ADMIN_USERNAME: z.string().default('admin'),
  ADMIN_PASSWORD: z.string().optional(),
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_FAILURE_WINDOW: seconds(300, DAY),
}))

export type AuthConfig = z.infer<typeof authEnv>

export function loadAuthConfig (env: NodeJS.ProcessEnv = process.env): Readonly<AuthConfig> {
  return loadConfig(authEnv, env)
}

/** The token settings the sessions service runs with. */
export function sessionSettings (config: AuthConfig) {
  return {
    secret: new TextEncoder().encode(config.JWT_SECRET),
    previewKey: previewKey(config.SERVICE_SECRET),
    issuer: config.JWT_ISSUER,
    algorithm: config.JWT_ALGORITHM,
    accessTtlSeconds: config.ACCESS_TOKEN_TTL,
    refreshTtlSeconds: config.REFRESH_TOKEN_TTL,
    rotation: config.REFRESH_ROTATION,
    graceSeconds: config.REFRESH_REUSE_GRACE_SECONDS,
    maxFailures: config.LOGIN_MAX_FAILURES,
    failureWindowSeconds: config.LOGIN_FAILURE_WINDOW,
  }
}
