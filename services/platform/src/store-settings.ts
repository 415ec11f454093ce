import { z } from 'zod'
import { bool } from './config.js'
import { postgresEnv } from './postgres/settings.js'

/** Where a service keeps its data: the embedded default, the production store, or MongoDB (a replica set). */
export const STORE_KINDS = ['sqlite', 'postgres', 'mongodb'] as const
export type StoreKind = typeof STORE_KINDS[number]

/**
 * The store settings every backend reads, one name each for every service: `STORE` chooses, the URL of
 * the chosen kind says where; MIGRATE_ON_START=false leaves schema migrations to `admin migrate` (a
 * service then refuses a store that is not at its schema version).
 */
export const storeEnv = {
  STORE: z.enum(STORE_KINDS).default('sqlite'),
  MONGODB_URL: z.string().optional(),
  MONGODB_DB: z.string().default('content'),
  ...postgresEnv,
  MIGRATE_ON_START: bool(true),
}

interface StoreUrls {
  DATABASE_URL?: string | undefined
  MONGODB_URL?: string | undefined
}

/** Refinement: the URL the store `kind` (chosen by `variable`) needs must be set. */
export function requireStoreUrl (kind: string, env: StoreUrls, ctx: z.RefinementCtx, variable = 'STORE'): void {
  if (kind === 'postgres' && !env.DATABASE_URL) ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: `required when ${variable}=postgres` })
  if ((kind === 'mongodb' || kind === 'gridfs') && !env.MONGODB_URL) ctx.addIssue({ code: 'custom', path: ['MONGODB_URL'], message: `required when ${variable}=${kind}` })
}
