import { loginLimit, recentFailures, type LoginLimit, type LoginLimitPolicy } from '../core/login-limit.js'

/** Bounds memory when many addresses fail: the oldest keys go first. */
const MAX_KEYS = 50_000

/**
 * Recent login failures per (client address, username), in this process's memory: each replica
 * counts on its own, so N replicas allow at most N times the limit.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>()

  constructor (private readonly policy: LoginLimitPolicy) {}

  check (key: string, now: number): LoginLimit {
    return loginLimit(this.failures.get(key) ?? [], now, this.policy)
  }

  fail (key: string, now: number): void {
    const recent = recentFailures(this.failures.get(key) ?? [], now, this.policy.windowMs)
    recent.push(now)
    this.failures.delete(key) // re-insert: Map order = least recently failed first
    this.failures.set(key, recent.slice(-this.policy.maxFailures))
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!)
  }

  reset (key: string): void {
    this.failures.delete(key)
  }
}

export const limiterKey = (clientAddress: string, username: string) => `${clientAddress}\u0000${username}`
