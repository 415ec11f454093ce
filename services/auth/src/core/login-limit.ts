export interface LoginLimitPolicy {
  maxFailures: number
  windowMs: number
}

export type LoginLimit = { locked: false } | { locked: true, retryAfterSeconds: number }

/** What a counter says of a key: failures counted in the current window and the ms until it ends. */
export interface FailureCount {
  consumedPoints: number
  msBeforeNext: number
}

/**
 * Fixed window, starting with a key's first failure: with `maxFailures` failures counted, further
 * attempts wait until the window ends (never less than a second, so Retry-After is never 0).
 */
export function loginLimit (count: FailureCount | null, policy: LoginLimitPolicy): LoginLimit {
  if (count === null || count.consumedPoints < policy.maxFailures) return { locked: false }
  return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil(count.msBeforeNext / 1000)) }
}

/** The counter's window: whole seconds, as rate-limiter-flexible counts them. */
export const windowSeconds = (policy: LoginLimitPolicy): number => Math.max(1, Math.ceil(policy.windowMs / 1000))
