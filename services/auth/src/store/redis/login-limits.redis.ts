import type { Redis } from 'ioredis'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import type { LoginLimitPolicy } from '../../core/login-limit.js'
import { counterOptions, createLoginLimiter, LIMITER_PREFIX, type FailureLimiter } from '../../services/login-limiter.js'
import { KEY_PREFIX } from './tokens.redis.js'

/** Failed logins counted in Redis, so every auth replica sees the same count; same rules as in memory. */
export function createRedisLoginLimiter (redis: Redis, policy: LoginLimitPolicy): FailureLimiter {
  return createLoginLimiter(new RateLimiterRedis({
    storeClient: redis, keyPrefix: `${KEY_PREFIX}${LIMITER_PREFIX}`, ...counterOptions(policy),
  }), policy)
}
