import { describe, expect, it } from 'vitest'
import { loginLimit, windowSeconds, type FailureCount, type LoginLimit } from '../../src/core/login-limit.js'

const policy = { maxFailures: 3, windowMs: 60_000 }

describe('loginLimit', () => {
  it.each<[string, FailureCount | null, LoginLimit]>([
    ['no failures', null, { locked: false }],
    ['under the limit', { consumedPoints: 2, msBeforeNext: 30_000 }, { locked: false }],
    ['at the limit: waits for the window to end', { consumedPoints: 3, msBeforeNext: 57_000 }, { locked: true, retryAfterSeconds: 57 }],
    ['over the limit', { consumedPoints: 4, msBeforeNext: 20_000 }, { locked: true, retryAfterSeconds: 20 }],
    ['rounds up', { consumedPoints: 3, msBeforeNext: 1_001 }, { locked: true, retryAfterSeconds: 2 }],
    ['never says 0', { consumedPoints: 3, msBeforeNext: 0 }, { locked: true, retryAfterSeconds: 1 }],
  ])('%s', (_label, count, expected) => {
    expect(loginLimit(count, policy)).toEqual(expected)
  })

  it('counts the window in whole seconds, at least one', () => {
    expect(windowSeconds({ maxFailures: 1, windowMs: 60_000 })).toBe(60)
    expect(windowSeconds({ maxFailures: 1, windowMs: 1_500 })).toBe(2)
    expect(windowSeconds({ maxFailures: 1, windowMs: 1 })).toBe(1)
  })
})
