import type { Logger } from 'pino'
import { DEFAULT_INCLUDE_BUDGET } from '@content/api-schema'
import { z } from 'zod'
import { SchemaVersionError } from './migrations/plan.js'

/** A configuration that failed validation; `problems` lists every error, one line each. */
export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

/** Formats every zod issue as `NAME: message`. */
export function describeIssues (error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.')
    return `${prefix}${path || '(root)'}: ${issue.message}`
  })
}

/**
 * Parses the environment with a schema into a frozen object, collecting every error at once.
 * Empty strings count as unset, so `FOO=` falls back to the default like an absent variable.
 */
export function loadConfig<S extends z.ZodType> (schema: S, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<S>> {
  const cleaned: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') cleaned[key] = value
  const result = schema.safeParse(cleaned)
  if (!result.success) throw new ConfigError(describeIssues(result.error))
  return Object.freeze(result.data)
}

/** Settings every service shares. Services extend this shape. */
export const baseEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8_000),
}

/**
 * INCLUDE_BUDGET (decisions §15): the most objects `include` may add to a page at worst; the gateway's
 * grammar and the objects service refuse a page past it (@content/api-schema include-budget.ts), so
 * both read it from here. The largest a page could ask for is 100 × 50² × 5.
 */
export const includeBudgetEnv = {
  INCLUDE_BUDGET: z.coerce.number().int().min(1).max(1_250_000).default(DEFAULT_INCLUDE_BUDGET),
}

/** Settings every gRPC backend shares. */
export const grpcServerEnv = {
  GRPC_HOST: z.string().default('0.0.0.0'),
  /** a connection older than this is asked to go away, so clients re-resolve and reach new replicas */
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
}

/** HS* secrets shorter than the hash output weaken the signature; 32 bytes is the floor for HS256. */
export const MIN_SECRET_BYTES = 32

const hmacSecret = () => z.string({ error: 'is required' }).refine((s) => Buffer.byteLength(s, 'utf8') >= MIN_SECRET_BYTES, {
  message: `must be at least ${MIN_SECRET_BYTES} bytes`,
})

/**
 * What every service needs to take part in authenticated calls: SERVICE_SECRET signs and checks the
 * service tokens; the access-token settings check the user tokens calls carry (the gateway's own too).
 */
export const identityEnv = {
  SERVICE_SECRET: hmacSecret(),
  JWT_SECRET: hmacSecret(),
  JWT_ISSUER: z.string().default('content-objects'),
  JWT_ALGORITHM: z.enum(['HS256', 'HS384', 'HS512']).default('HS256'),
}

/**
 * The Prometheus scrape endpoint every service may serve: GET /metrics on a port of its own, never the
 * serving port. Unset (or empty) METRICS_PORT = no endpoint.
 */
export const metricsEnv = {
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  METRICS_HOST: z.string().default('0.0.0.0'),
}

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback)
export const bool = (fallback: boolean) => z.enum(['true', 'false', '1', '0']).default(fallback ? 'true' : 'false')
  .transform((v) => v === 'true' || v === '1')

/** Runs `load`; on a ConfigError prints every problem and exits with status 78 (EX_CONFIG). */
export function configOrExit<T> (service: string, load: () => T): T {
  try {
    return load()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`)
      process.exit(78)
    }
    throw err
  }
}

/**
 * Runs `open` (a store's opening: connecting, migrating or checking its schema); when it fails, logs why
 * (a store refused for its schema version says what to run) and exits with status 1.
 */
export async function openedOrExit<T> (log: Logger, what: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open()
  } catch (err) {
    if (err instanceof SchemaVersionError) log.fatal(err.message)
    else log.fatal({ err }, `cannot open the ${what}`)
    return process.exit(1)
  }
}

const STATUS_NAMES = ['on', 'off', 'draft'] as const

/**
 * Who reads what (decisions §7, §16): the objects service decides reads by them, and the gateway's live
 * streams (decisions §17) decide by them which events a caller sees; both read the same settings.
 */
export const readRulesEnv = {
  /** the statuses readers see */
  VISIBLE_STATUSES: z.string().default('on').transform((text, ctx) => {
    const names = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
    const statuses = [...new Set(names.filter((s): s is typeof STATUS_NAMES[number] => (STATUS_NAMES as readonly string[]).includes(s)))]
    if (statuses.length !== names.length || statuses.length === 0) ctx.addIssue({ code: 'custom', message: 'a comma list of on, off, draft' })
    return statuses
  }),
  /** objects outside their start_date … end_date window are hidden */
  PUBLICATION_WINDOW_FILTER: bool(true),
  /** groups that may write besides a token's backend_auth */
  WRITER_GROUPS: z.string().transform((s) => s.split(',').map((g) => g.trim()).filter((g) => g !== '')).default(['administrator', 'editor']),
}
