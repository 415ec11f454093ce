import { z } from 'zod'
import { baseEnv, port } from '@content/platform'

export const posterEnv = z.object({
  ...baseEnv,
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: port(50053),
  OBJECTS_SERVICE_ADDR: z.string().default('127.0.0.1:50051'),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
})

export type PosterConfig = z.infer<typeof posterEnv>
