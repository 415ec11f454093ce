import { z } from 'zod'
import { baseEnv, grpcServerEnv, identityEnv, includeBudgetEnv, metricsEnv, bool, port, readRulesEnv, requireStoreUrl, storeEnv } from '@content/platform'
import { nicknameProblem } from './core/nickname.js'
import { SQLITE_CACHE_MB } from './store/sqlite/schema.sqlite.js'

/** Where the objects live: what `admin migrate` reads too. */
const storeShape = {
  DATA_DIR: z.string().default('./data'),
  ...storeEnv,
  // SQLite's page cache, MiB: see schema.sqlite.ts, applyPragmas
  SQLITE_CACHE_MB: z.coerce.number().int().min(1).max(1_048_576).default(SQLITE_CACHE_MB),
}
const refineStore = (env: { STORE: string, DATABASE_URL?: string | undefined, MONGODB_URL?: string | undefined }, ctx: z.RefinementCtx) => {
  requireStoreUrl(env.STORE, env, ctx)
}

export const objectsStoreEnv = z.object(storeShape).superRefine(refineStore)
export type ObjectsStoreConfig = z.infer<typeof objectsStoreEnv>

export const objectsEnv = z.object({
  ...baseEnv,
  ...grpcServerEnv,
  ...identityEnv,
  ...metricsEnv,
  ...includeBudgetEnv,
  GRPC_PORT: port(50051),
  ...storeShape,
  PUBLICATION_NICKNAME: z.string().default('publication').superRefine((n, ctx) => {
    const problem = nicknameProblem(n)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  }),
  ...readRulesEnv,
  // seconds an upload waits for the POST /objects that attaches it (decisions §12); at most a day
  UPLOAD_TOKEN_TTL: z.coerce.number().int().min(1).max(86_400).default(1_800),
  // seconds a preview URL (POST /objects/{id}/preview, decisions §16) reads; at most a week
  PREVIEW_TTL: z.coerce.number().int().min(1).max(604_800).default(3_600),
  // hours committed change events stay in the outbox; a feed consumer further behind starts over
  CHANGE_RETENTION_HOURS: z.coerce.number().min(0.01).max(24 * 365).default(168),
  // revisions kept per object, the oldest dropped first (decisions §16); unset: all, 0: none
  REVISIONS_KEEP: z.coerce.number().int().min(0).max(1_000_000).optional(),
  // days a trashed object waits before it is purged for good (decisions §16)
  TRASH_RETENTION_DAYS: z.coerce.number().min(0.0001).max(36_500).default(30),
  // webhook receivers on loopback, private or link-local addresses are refused unless this allows them
  WEBHOOK_ALLOW_PRIVATE: bool(false),
  // bound on one delivery attempt (connect, send, answer headers)
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // how long a failing delivery is retried (exponential backoff from 5 s, at most an hour apart) before it is marked failed
  WEBHOOK_RETRY_HOURS: z.coerce.number().min(0.001).max(24 * 30).default(24),
}).superRefine(refineStore)

export type ObjectsConfig = z.infer<typeof objectsEnv>
