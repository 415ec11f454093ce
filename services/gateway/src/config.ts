import { baseEnv, bool, loadConfig, metricsEnv, port } from '@content/platform'
import { z } from 'zod'

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
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  OBJECTS_SERVICE_ADDR: z.string().default('127.0.0.1:50051'),
  AUTH_SERVICE_ADDR: z.string().default('127.0.0.1:50052'),
  POSTER_SERVICE_ADDR: z.string().default('127.0.0.1:50053'),
  CONFIG_FILE: z.string().optional(),
  JWT_SECRET: z.string({ error: 'is required' })
    .refine((s) => Buffer.byteLength(s, 'utf8') >= 32, 'must be at least 32 bytes'),
  JWT_ISSUER: z.string().default('content-objects'),
  JWT_ALGORITHM: z.enum(['HS256', 'HS384', 'HS512']).default('HS256'),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(5000),
  TIME_ZONE: z.string().default('UTC').refine(validTimeZone, 'must be an IANA time zone'),
  TRUST_PROXY: bool(false),
  READ_CACHE: bool(true),
  READ_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  STREAM_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(600_000),
  THUMBNAIL_CACHE_BYTES: z.coerce.number().int().min(0).max(1024 ** 3).default(64 * 1024 ** 2),
  THUMBNAIL_CACHE_TTL: z.coerce.number().int().min(0).max(86_400).default(30),
})

export type GatewayEnv = Readonly<z.infer<typeof gatewayEnv>>

export function loadGatewayConfig (env: NodeJS.ProcessEnv = process.env): GatewayEnv {
  return loadConfig(gatewayEnv, env)
}
