import { present } from '@content/platform'
export interface LoginLimitPolicy {
  maxFailures: number
  windowMs: number
}

/** The failure times (ms, ascending) still inside the window ending at `now`. */
export function recentFailures (failures: readonly number[], now: number, windowMs: number): number[] {
  return failures.filter((t) => t > now - windowMs && t <= now)
}

export type LoginLimit = { locked: false } | { locked: true, retryAfterSeconds: number }

/**
 * Sliding window: with `maxFailures` failures inside the window further attempts wait until enough
 * of them have aged out that one more failure would still be under the limit.
 */
export function loginLimit (failures: readonly number[], now: number, policy: LoginLimitPolicy): LoginLimit {
  const recent = recentFailures(failures, now, policy.windowMs)
  if (recent.length < policy.maxFailures) return { locked: false }
  const unlockAt = present(recent[recent.length - policy.maxFailures], 'the oldest counted failure') + policy.windowMs
  return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil((unlockAt - now) / 1000)) }
}
