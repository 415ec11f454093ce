import { DomainError } from '@content/platform'
import type { Redis } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { LoginLimit, LoginLimitPolicy } from '../../core/login-limit.js'
import type { FailureLimiter } from '../../services/login-limiter.js'
import { KEY_PREFIX } from './tokens.redis.js'

const unavailable = () => new DomainError('SERVICE_UNAVAILABLE', 'login limiter unavailable; try again later')

/**
 * Failed logins counted in Redis, so every auth replica sees the same count: at most `maxFailures` per
 * key in a window that starts with the first failure. When Redis cannot answer, logins fail closed.
 */
export function createRedisLoginLimiter (redis: Redis, policy: LoginLimitPolicy): FailureLimiter {
  const limiter = new RateLimiterRedis({
    storeClient: redis, keyPrefix: `${KEY_PREFIX}login-failures`, points: policy.maxFailures,
    duration: Math.max(1, Math.ceil(policy.windowMs / 1000)),
  })
  return {
    async check (key): Promise<LoginLimit> {
      const res = await limiter.get(key).catch(() => { throw unavailable() })
      if (res === null || res.consumedPoints < policy.maxFailures) return { locked: false }
      return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) }
    },
    async fail (key) {
      // a rejection with a RateLimiterRes only says the limit is reached, which check() reports next time
      await limiter.consume(key).catch((err: unknown) => { if (!(err instanceof RateLimiterRes)) throw unavailable() })
    },
    async reset (key) {
      await limiter.delete(key).catch(() => { throw unavailable() })
    },
  }
}
