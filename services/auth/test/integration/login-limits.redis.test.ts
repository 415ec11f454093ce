import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Redis } from 'ioredis'
import { createRedisLoginLimiter } from '../../src/store/redis/login-limits.redis.js'
import { createRedisClient, redisReady } from '../../src/store/redis/redis.client.js'
import { captureLogger } from '../helpers/logger.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'

// Two auth replicas are two limiters over one Redis: a failure counted by one is seen by the other.
describe('login limiting shared through Redis', () => {
  let server: RedisServer
  const clients: Redis[] = []
  beforeAll(async () => { server = await startRedisServer() })
  afterAll(async () => {
    for (const c of clients) c.disconnect()
    await server?.stop()
  })

  async function replica (maxFailures = 3, windowMs = 60_000) {
    const redis = createRedisClient(server.url, captureLogger().log)
    clients.push(redis)
    expect(await redisReady(redis, 5_000)).toBe(true)
    return createRedisLoginLimiter(redis, { maxFailures, windowMs })
  }

  it('when failures land on different replicas, then together they reach the limit, with the time left to wait', async () => {
    const [a, b] = [await replica(), await replica()]
    const key = '203.0.113.7\u0000alice'
    await a.fail(key, 0)
    await b.fail(key, 0)
    expect(await a.check(key, 0)).toEqual({ locked: false })
    await a.fail(key, 0)
    const limit = await b.check(key, 0)
    expect(limit).toMatchObject({ locked: true })
    expect((limit as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(55)
    expect(await b.check('203.0.113.8\u0000alice', 0)).toEqual({ locked: false })
    await b.reset(key)
    expect(await a.check(key, 0)).toEqual({ locked: false })
  })

  it('when the window passes, then the key is free again', async () => {
    const a = await replica(1, 1_000)
    await a.fail('k', 0)
    expect((await a.check('k', 0)).locked).toBe(true)
    await new Promise((r) => setTimeout(r, 1_100))
    expect((await a.check('k', 0)).locked).toBe(false)
  })

  it('when Redis does not answer, then logins fail closed with UNAVAILABLE', async () => {
    const down = createRedisClient('redis://127.0.0.1:1', captureLogger().log)
    clients.push(down)
    const limiter = createRedisLoginLimiter(down, { maxFailures: 3, windowMs: 60_000 })
    await expect(limiter.check('k', 0)).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE' })
    await expect(limiter.fail('k', 0)).rejects.toMatchObject({ code: 'UNAVAILABLE' })
  })
})
