import { describe, expect, it } from 'vitest'
import { loginLimit, recentFailures, type LoginLimit } from '../../src/core/login-limit.js'
import { createMemoryLoginLimiter } from '../../src/services/login-limiter.js'

const policy = { maxFailures: 3, windowMs: 60_000 }
const NOW = 1_000_000

describe('loginLimit', () => {
  it.each<[string, number[], LoginLimit]>([
    ['no failures', [], { locked: false }],
    ['under the limit', [NOW - 2, NOW - 1], { locked: false }],
    ['at the limit', [NOW - 3_000, NOW - 2_000, NOW - 1_000], { locked: true, retryAfterSeconds: 57 }],
    ['old failures age out', [NOW - 60_000, NOW - 2_000, NOW - 1_000], { locked: false }],
    ['over the limit: waits for enough to age out', [NOW - 50_000, NOW - 40_000, NOW - 30_000, NOW - 1_000], { locked: true, retryAfterSeconds: 20 }],
    ['rounds up and never says 0', [NOW - 59_999, NOW - 2, NOW - 1], { locked: true, retryAfterSeconds: 1 }],
  ])('%s', (_label, failures, expected) => {
    expect(loginLimit(failures, NOW, policy)).toEqual(expected)
  })

  it('keeps only failures inside the window', () => {
    expect(recentFailures([NOW - 60_000, NOW - 59_999, NOW, NOW + 1], NOW, 60_000)).toEqual([NOW - 59_999, NOW])
  })
})

describe('the in-memory login limiter', () => {
  it('locks a key after the limit, leaves other keys alone, and resets', async () => {
    const limiter = createMemoryLoginLimiter(policy)
    for (let i = 0; i < 3; i++) await limiter.fail('a', NOW + i)
    expect((await limiter.check('a', NOW + 3)).locked).toBe(true)
    expect((await limiter.check('b', NOW + 3)).locked).toBe(false)
    expect((await limiter.check('a', NOW + 60_001)).locked).toBe(false)
    await limiter.reset('a')
    expect((await limiter.check('a', NOW + 3)).locked).toBe(false)
  })
})
