import { baseEnv, bool, identityEnv, includeBudgetEnv, loadConfig, metricsEnv, port, readRulesEnv } from '@content/platform'
import { z } from 'zod'
import { isAddressOrRange } from './http/trusted-proxies.js'

const validTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const gatewayEnv = z.object({
  ...baseEnv,
  ...metricsEnv,
  ...includeBudgetEnv,
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  OBJECTS_SERVICE_ADDR: z.string().default('127.0.0.1:50051'),
  AUTH_SERVICE_ADDR: z.string().default('127.0.0.1:50052'),
  POSTER_SERVICE_ADDR: z.string().default('127.0.0.1:50053'),
  CONFIG_FILE: z.string().optional(),
  ...identityEnv,
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(5000),
  TIME_ZONE: z.string().default('UTC').refine(validTimeZone, 'must be an IANA time zone'),
  /**
   * `false`, `true` (every peer is a proxy: only behind one that overwrites X-Forwarded-For), or the
   * proxies' addresses and CIDR ranges, comma separated: X-Forwarded-* (the client address the login
   * limiter counts by, the scheme and host of URLs) is believed only from them.
   */
  TRUST_PROXY: z.string().default('false').transform((text, ctx) => {
    if (text === 'true' || text === 'false') return text === 'true'
    const entries = text.split(',').map((s) => s.trim()).filter(Boolean)
    const bad = entries.filter((e) => !isAddressOrRange(e))
    if (bad.length > 0 || entries.length === 0) ctx.addIssue({ code: 'custom', message: `true, false, or addresses and CIDR ranges (not ${bad.join(', ') || 'empty'})` })
    return entries
  }),
  /** how long an API key's exchanged access token is reused: a revoked key stops working within this */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(600).default(60),
  READ_CACHE: bool(true),
  /** the reads of one event-loop turn (single objects, lists) reach the objects service as one call */
  COALESCE_READS: bool(true),
  /** the saves of one event-loop turn (POST /objects) reach the objects service as one call, committed together */
  COALESCE_WRITES: bool(true),
  READ_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  STREAM_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(600_000),
  THUMBNAIL_CACHE_BYTES: z.coerce.number().int().min(0).max(1024 ** 3).default(64 * 1024 ** 2),
  THUMBNAIL_CACHE_TTL: z.coerce.number().int().min(0).max(86_400).default(30),
  // decisions §17: live change streams (GET /changes); who sees which event follows the objects service's read rules
  ...readRulesEnv,
  LIVE_MAX_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  LIVE_MAX_STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(100_000).default(50),
  /** a `: ping` comment this often keeps proxies, and the gateway's own 60 s idle timeout (app.ts), from closing a quiet stream */
  LIVE_PING_MS: z.coerce.number().int().min(100).max(30_000).default(15_000),
  /** live events wait to leave with the next ones, up to this long after their commit, one socket write per stream and window (0: at once) */
  LIVE_FLUSH_MS: z.coerce.number().int().min(0).max(1_000).default(50),
  /** a client that leaves more than this unread is dropped */
  LIVE_MAX_BUFFER_BYTES: z.coerce.number().int().min(1024).max(1024 ** 3).default(1024 ** 2),
  /** how often open streams' logins are checked with the auth service: a logout or a disabled user ends them */
  LIVE_SESSION_CHECK_MS: z.coerce.number().int().min(100).max(30_000).default(15_000),
  /** the latest events kept in memory: a resume within them needs no call to the objects service */
  LIVE_RECENT_EVENTS: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
})

export type GatewayEnv = Readonly<z.infer<typeof gatewayEnv>>

export function loadGatewayConfig (env: NodeJS.ProcessEnv = process.env): GatewayEnv {
  return loadConfig(gatewayEnv, env)
}
