import { z } from 'zod'
import { baseEnv, grpcServerEnv, identityEnv, metricsEnv, port, requireStoreUrl, storeEnv, type StoreKind } from '@content/platform'

// an integer check that lets the other checks (and the cross-field one below) report too: `.int()` stops them
const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().min(min).max(max).refine(Number.isInteger, 'must be an integer').default(fallback)

const MIB = 1_048_576

export const MEDIA_STORES = ['local', 'postgres', 'gridfs'] as const
export type MediaStoreKind = typeof MEDIA_STORES[number]
/** Where media live when MEDIA_STORE is not set: beside the other services' data, as STORE says. */
const MEDIA_STORE_OF: Record<StoreKind, MediaStoreKind> = { sqlite: 'local', postgres: 'postgres', mongodb: 'gridfs' }

/**
 * Where the media live: files under DATA_DIR/media (local), the `poster` schema of DATABASE_URL (postgres)
 * or GridFS buckets of MONGODB_DB (gridfs); MEDIA_STORE chooses, else STORE (sqlite → local). Uploads
 * stage under DATA_DIR/media either way. What `admin migrate` reads too.
 */
const storeShape = {
  DATA_DIR: z.string().default('./data'),
  ...storeEnv,
  MEDIA_STORE: z.enum(MEDIA_STORES).optional(),
}
interface StoreFields {
  STORE: StoreKind
  MEDIA_STORE?: MediaStoreKind | undefined
  DATABASE_URL?: string | undefined
  MONGODB_URL?: string | undefined
}
// listed with the other problems, not only once they are fixed
const resolved = <T extends StoreFields> (schema: z.ZodType<T>) => schema.superRefine((env, ctx) => {
  requireStoreUrl(env.MEDIA_STORE ?? MEDIA_STORE_OF[env.STORE], env, ctx, env.MEDIA_STORE ? 'MEDIA_STORE' : 'STORE')
}, { when: () => true }).transform((env) => ({ ...env, MEDIA_STORE: env.MEDIA_STORE ?? MEDIA_STORE_OF[env.STORE] }))

export const posterStoreEnv = resolved(z.object(storeShape))
export type PosterStoreConfig = z.infer<typeof posterStoreEnv>

export const posterEnv = resolved(z.object({
  ...baseEnv,
  ...grpcServerEnv,
  ...identityEnv,
  ...metricsEnv,
  GRPC_PORT: port(50053),
  OBJECTS_SERVICE_ADDR: z.string().default('127.0.0.1:50051'),
  RPC_TIMEOUT_MS: int(50, 60_000, 5_000),
  ...storeShape,
  // signs thumbnail URLs; changing it retires every URL issued
  MEDIA_SIGNING_KEY: z.string({ error: 'required (at least 32 bytes)' })
    .refine((key) => Buffer.byteLength(key, 'utf8') >= 32, 'must be at least 32 bytes'),
  UPLOAD_MAX_BYTES: int(1, 1_024 * MIB, 25 * MIB),
  UPLOAD_MAX_PIXELS: int(1, 1_000_000_000, 50_000_000),
  UPLOAD_CONCURRENCY: int(1, 1_000, 8),
  THUMBNAIL_URL_TTL: int(1, 31_536_000, 3_600),
  THUMBNAIL_STORE_MAX_BYTES: int(MIB, Number.MAX_SAFE_INTEGER, 1_024 * MIB),
  RENDER_CONCURRENCY: int(1, 64, 2),
  RENDER_QUEUE: int(0, 10_000, 32),
  RENDER_TIMEOUT_MS: int(100, 600_000, 10_000),
  MEDIA_GC_INTERVAL: int(1, 86_400, 60),
  // an original stored (or stored again) within the grace is never collected: its upload registers meanwhile,
  // which takes milliseconds; the default leaves minutes
  MEDIA_GC_GRACE: int(1, 30 * 86_400, 600),
}))

export type PosterConfig = z.infer<typeof posterEnv>
