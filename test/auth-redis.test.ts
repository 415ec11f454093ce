import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type RedisProcess } from './support/redis.js'
import { expectError, login } from './support/seeded.js'
import { ADMIN, freePort, http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

/** Revocations kept in a durable Redis of the test's own (decisions §6). */
describe('refresh-token revocations in Redis', () => {
  let redis: RedisProcess | undefined
  let system: RunningSystem | undefined
  let redisDir: string
  let dataDir: string
  let redisPort: number
  const env = () => ({ REDIS_URL: must(redis).url, JWT_SECRET: 'redis-test-secret-0123456789-abcdefghijkl' })
  const refresh = (token: string) => http(must(system).base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: token } })
  const revoke = (token: string, access: string) => http(must(system).base, 'DELETE', `/auth/${token}`, { headers: { authorization: `Bearer ${access}` } })

  /** Refresh answers once the auth service's Redis client has reconnected. */
  async function refreshEventually (token: string) {
    const until = Date.now() + 10_000
    for (;;) {
      const res = await refresh(token)
      if (res.status !== 503 || Date.now() > until) return res
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  beforeAll(async () => {
    redisDir = mkdtempSync(join(tmpdir(), 'content-redis-'))
    redisPort = await freePort()
    redis = await startRedis(redisPort, redisDir)
    system = await startSystem(env())
    dataDir = system.dataDir
  })
  afterAll(async () => {
    await system?.stop()
    await redis?.stop()
    if (dataDir) removeDir(dataDir)
    if (redisDir) removeDir(redisDir)
  })

  it('a revoked token stays revoked across a restart of the system and of Redis; stopping Redis fails refresh and revoke closed, fast', async () => {
    const revoked = await login(must(system).base, ADMIN.username, ADMIN.password)
    const kept = await login(must(system).base, ADMIN.username, ADMIN.password)
    expect((await revoke(revoked.refresh_token, revoked.access_token)).status).toBe(204)
    expectError(await refresh(revoked.refresh_token), 401, 'REFRESH_TOKEN_INVALID')

    // the whole system restarts on the same DATA_DIR and Redis
    await must(system).stop()
    system = await startSystem(env(), dataDir)
    expectError(await refreshEventually(revoked.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    const renewed = await refresh(kept.refresh_token)
    expect(renewed.status).toBe(200)
    let live: { refresh_token: string, access_token: string } = renewed.body.data

    // Redis restarts from its append-only file
    await must(redis).stop()
    redis = await startRedis(redisPort, redisDir)
    expectError(await refreshEventually(revoked.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    const again = await refreshEventually(live.refresh_token)
    expect(again.status).toBe(200)
    live = again.body.data

    // Redis gone: refresh and revoke answer 503 within about a second; reads with a valid access token go on
    await must(redis).stop()
    for (const call of [() => refresh(live.refresh_token), () => revoke(live.refresh_token, live.access_token)]) {
      const started = Date.now()
      const res = await call()
      expect(Date.now() - started).toBeLessThan(1_500)
      expectError(res, 503, 'SERVICE_UNAVAILABLE')
    }
    const read = await http(must(system).base, 'GET', '/me', { headers: { authorization: `Bearer ${live.access_token}` } })
    expect(read.status).toBe(200)
    expect((await http(must(system).base, 'GET', '/objects/1', { headers: { authorization: `Bearer ${live.access_token}` } })).status).toBe(200)
  })
})
