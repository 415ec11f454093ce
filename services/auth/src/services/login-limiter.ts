import { DomainError } from '@content/platform'
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { loginLimit, windowSeconds, type LoginLimit, type LoginLimitPolicy } from '../core/login-limit.js'

/**
 * Failed logins per key (client address the gateway saw + username). In memory by default; shared by
 * every auth replica through Redis when REDIS_URL is set (store/redis/login-limits.redis.ts).
 */
export interface FailureLimiter {
  check(key: string): Promise<LoginLimit>
  fail(key: string): Promise<void>
  reset(key: string): Promise<void>
}

/** One prefix for both back ends, so a key means the same in memory and in Redis. */
export const LIMITER_PREFIX = 'login-failures'

const unavailable = () => new DomainError('SERVICE_UNAVAILABLE', 'login limiter unavailable; try again later')

/** The counter's options, the same for every back end: one behaviour whichever holds the counts. */
export const counterOptions = (policy: LoginLimitPolicy) => ({ points: policy.maxFailures, duration: windowSeconds(policy) })

/**
 * Login limiting over a rate-limiter-flexible counter. When the counter's store cannot answer,
 * logins fail closed (UNAVAILABLE) rather than go uncounted.
 */
export function createLoginLimiter (counter: RateLimiterAbstract, policy: LoginLimitPolicy): FailureLimiter {
  return {
    async check (key) {
      return loginLimit(await counter.get(key).catch(() => { throw unavailable() }), policy)
    },
    async fail (key) {
      // a rejection with a RateLimiterRes only says the limit is reached, which check() reports next time
      await counter.consume(key).catch((err: unknown) => { if (!(err instanceof RateLimiterRes)) throw unavailable() })
    },
    async reset (key) {
      await counter.delete(key).catch(() => { throw unavailable() })
    },
  }
}

/**
 * Failed logins counted in this process's memory: each replica counts on its own, so N replicas allow
 * at most N times the limit. Redis shares the count instead. Keys are dropped as their window ends.
 */
export function createMemoryLoginLimiter (policy: LoginLimitPolicy): FailureLimiter {
  return createLoginLimiter(new RateLimiterMemory({ keyPrefix: LIMITER_PREFIX, ...counterOptions(policy) }), policy)
}

export const limiterKey = (clientAddress: string, username: string) => `${clientAddress}\u0000${username}`
