import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Redis } from 'ioredis'
import { createMemoryLoginLimiter, type FailureLimiter } from '../../src/services/login-limiter.js'
import type { LoginLimitPolicy } from '../../src/core/login-limit.js'
import { createRedisLoginLimiter } from '../../src/store/redis/login-limits.redis.js'
import { createRedisClient, redisReady } from '../../src/store/redis/redis.client.js'
import { captureLogger } from '../helpers/logger.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

let server: RedisServer
const clients: Redis[] = []
beforeAll(async () => { server = await startRedisServer() })
afterAll(async () => {
  for (const c of clients) c.disconnect()
  await server?.stop()
})

async function redisClient (): Promise<Redis> {
  const redis = createRedisClient(server.url, captureLogger().log)
  clients.push(redis)
  expect(await redisReady(redis, 5_000)).toBe(true)
  return redis
}

/** Each back end makes a limiter; `replicas` of them share one count where the back end shares it. */
const backEnds: Array<[string, (policy: LoginLimitPolicy) => Promise<FailureLimiter>]> = [
  ['in memory', async (policy) => createMemoryLoginLimiter(policy)],
  ['in Redis', async (policy) => createRedisLoginLimiter(await redisClient(), policy)],
]

let keys = 0
/** A key no earlier case touched (Redis outlives a case). */
const freshKey = () => `203.0.113.${++keys}\u0000alice`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// The same cases on both back ends: one behaviour, whichever holds the counts.
describe.each(backEnds)('login limiting %s', (_name, make) => {
  it('when failures reach the limit, then the key is locked for the rest of the window, with the time left to wait', async () => {
    const limiter = await make({ maxFailures: 3, windowMs: 60_000 })
    const key = freshKey()
    await limiter.fail(key)
    await limiter.fail(key)
    expect(await limiter.check(key)).toEqual({ locked: false })
    await limiter.fail(key)
    const limit = await limiter.check(key)
    expect(limit).toMatchObject({ locked: true })
    expect((limit as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(55)
    expect((limit as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60)
  })

  it('when one key is locked, then other addresses and other usernames are not', async () => {
    const limiter = await make({ maxFailures: 1, windowMs: 60_000 })
    const key = freshKey()
    await limiter.fail(key)
    expect((await limiter.check(key)).locked).toBe(true)
    expect(await limiter.check(freshKey())).toEqual({ locked: false })
    expect(await limiter.check(`${key.split('\u0000')[0]}\u0000bob`)).toEqual({ locked: false })
  })

  it('when a login succeeds (reset), then the count starts again', async () => {
    const limiter = await make({ maxFailures: 2, windowMs: 60_000 })
    const key = freshKey()
    await limiter.fail(key)
    await limiter.fail(key)
    expect((await limiter.check(key)).locked).toBe(true)
    await limiter.reset(key)
    expect(await limiter.check(key)).toEqual({ locked: false })
    await limiter.fail(key)
    expect(await limiter.check(key)).toEqual({ locked: false })
  })

  it('when failures go on past the limit, then the lock still ends with the window the first failure opened', async () => {
    const limiter = await make({ maxFailures: 1, windowMs: 1_000 })
    const key = freshKey()
    await limiter.fail(key)
    await limiter.fail(key)
    await limiter.fail(key)
    expect(await limiter.check(key)).toEqual({ locked: true, retryAfterSeconds: 1 })
    await sleep(1_100)
    expect(await limiter.check(key)).toEqual({ locked: false })
  })
})

describe('login limiting in Redis, beyond memory', () => {
  it('when failures land on different replicas, then together they reach the limit', async () => {
    const policy = { maxFailures: 3, windowMs: 60_000 }
    const [a, b] = [createRedisLoginLimiter(await redisClient(), policy), createRedisLoginLimiter(await redisClient(), policy)]
    const key = freshKey()
    await a.fail(key)
    await b.fail(key)
    expect(await a.check(key)).toEqual({ locked: false })
    await a.fail(key)
    expect((await b.check(key)).locked).toBe(true)
    await b.reset(key)
    expect(await a.check(key)).toEqual({ locked: false })
  })

  it('when Redis does not answer, then logins fail closed with UNAVAILABLE', async () => {
    const down = createRedisClient('redis://127.0.0.1:1', captureLogger().log)
    clients.push(down)
    const limiter = createRedisLoginLimiter(down, { maxFailures: 3, windowMs: 60_000 })
    await expect(limiter.check('k')).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE' })
    await expect(limiter.fail('k')).rejects.toMatchObject({ code: 'UNAVAILABLE' })
    await expect(limiter.reset('k')).rejects.toMatchObject({ code: 'UNAVAILABLE' })
  })
})
