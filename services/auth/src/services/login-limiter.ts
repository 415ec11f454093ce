import { loginLimit, recentFailures, type LoginLimit, type LoginLimitPolicy } from '../core/login-limit.js'

/** Bounds memory when many addresses fail: the oldest keys go first. */
const MAX_KEYS = 50_000

/**
 * Failed logins per key (client address the gateway saw + username). In memory by default; shared by
 * every auth replica through Redis when REDIS_URL is set (store/redis/login-limits.redis.ts).
 */
export interface FailureLimiter {
  check(key: string, now: number): Promise<LoginLimit>
  fail(key: string, now: number): Promise<void>
  reset(key: string): Promise<void>
}

/**
 * Recent login failures per key, in this process's memory (a sliding window): each replica counts on
 * its own, so N replicas allow at most N times the limit. Redis shares the count instead.
 */
export function createMemoryLoginLimiter (policy: LoginLimitPolicy): FailureLimiter {
  const failures = new Map<string, number[]>()
  return {
    async check (key, now) {
      return loginLimit(failures.get(key) ?? [], now, policy)
    },
    async fail (key, now) {
      const recent = recentFailures(failures.get(key) ?? [], now, policy.windowMs)
      recent.push(now)
      failures.delete(key) // re-insert: Map order = least recently failed first
      failures.set(key, recent.slice(-policy.maxFailures))
      if (failures.size > MAX_KEYS) for (const oldest of failures.keys()) { failures.delete(oldest); break }
    },
    async reset (key) {
      failures.delete(key)
    },
  }
}

export const limiterKey = (clientAddress: string, username: string) => `${clientAddress}\u0000${username}`
