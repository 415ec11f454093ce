import { createLogger } from '@content/platform'
import type { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import { hashPassword } from '../../src/security/passwords.js'
import { createRedisClient, redisReady } from '../../src/store/redis/redis.client.js'
import { createRedisTokensStore } from '../../src/store/redis/tokens.redis.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import { rpcError } from '../helpers/rpc.js'
import { startStack, type Stack, type StackOptions } from '../helpers/stack.js'
import { tempDir } from '../helpers/temp.js'
import { must } from '../helpers/must.js'

const quiet = createLogger({ service: 'auth-test', level: 'silent' })
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c() })

async function redisClient (server: RedisServer): Promise<Redis> {
  const redis = createRedisClient(server.url, quiet)
  cleanups.push(() => redis.disconnect())
  expect(await redisReady(redis, 5_000)).toBe(true)
  return redis
}

async function stackOver (dataDir: string, options: StackOptions = {}): Promise<Stack> {
  const stack = await startStack({ dataDir, ...options })
  cleanups.push(() => stack.stop())
  return stack
}

/** A user, two logins; the first one revoked. Returns both refresh tokens. */
async function revokeOne (s: Stack) {
  if (!await s.accounts.users.findByUsername('alice')) {
    await s.accounts.users.create({ username: 'alice', passwordHash: await hashPassword('pw'), name: '', email: '', groups: [], cardId: null })
  }
  const login = () => s.client.Login({ username: 'alice', password: 'pw', client_address: '127.0.0.1' })
  const revoked = (await login()).refresh_token
  const kept = (await login()).refresh_token
  const caller = { user_id: must((await s.accounts.users.findByUsername('alice'))).id, groups: [] }
  await s.client.Revoke({ caller, refresh_token: revoked })
  return { revoked, kept, caller }
}

async function expectRevokedButOtherAlive (s: Stack, tokens: { revoked: string, kept: string, caller: { user_id: number, groups: string[] } }) {
  expect((await rpcError(s.client.Refresh({ refresh_token: tokens.revoked }))).reason).toBe('REFRESH_TOKEN_INVALID')
  expect((await rpcError(s.client.Revoke({ caller: tokens.caller, refresh_token: tokens.revoked }))).reason).toBe('REFRESH_TOKEN_NOT_FOUND')
  expect((await s.client.Refresh({ refresh_token: tokens.kept })).refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
}

describe('a revocation outlives restarts', () => {
  it('of the auth service over the same SQLite file', async () => {
    const dir = tempDir()
    cleanups.push(dir.remove)
    const first = await stackOver(dir.path)
    const tokens = await revokeOne(first)
    await first.stop()
    cleanups.pop()
    await expectRevokedButOtherAlive(await stackOver(dir.path), tokens)
  })

  it('of the auth service over the same Redis', async () => {
    const server = await startRedisServer()
    cleanups.push(() => server.stop())
    const dir = tempDir()
    cleanups.push(dir.remove)
    const first = await stackOver(dir.path, { tokens: async () => createRedisTokensStore(await redisClient(server)) })
    const tokens = await revokeOne(first)
    await first.stop()
    cleanups.pop()
    // the SQLite file holds no token state in this setup: the revocation can only come from Redis
    const second = await stackOver(dir.path, { tokens: async () => createRedisTokensStore(await redisClient(server)) })
    expect(second.db.prepare('SELECT (SELECT count(*) FROM refresh_tokens) + (SELECT count(*) FROM revoked_families) AS n').get()).toEqual({ n: 0 })
    await expectRevokedButOtherAlive(second, tokens)
  })

  it('of Redis itself with appendonly yes and appendfsync always', async () => {
    const redisDir = tempDir('auth-redis-')
    cleanups.push(redisDir.remove)
    const aof = ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir.path]
    const server = await startRedisServer(aof)
    const redis = await redisClient(server)
    const dir = tempDir()
    cleanups.push(dir.remove)
    const s = await stackOver(dir.path, { tokens: () => createRedisTokensStore(redis) })
    const tokens = await revokeOne(s)
    await server.stop('SIGKILL') // a crash: only what reached the AOF survives
    const restarted = await startRedisServer(aof, server.port)
    cleanups.push(() => restarted.stop())
    expect(await redisReady(redis, 10_000)).toBe(true)
    await expectRevokedButOtherAlive(s, tokens)
  })
})

describe('Redis unavailable: refresh and revoke fail closed', () => {
  async function redisStack () {
    const server = await startRedisServer()
    cleanups.push(() => server.stop('SIGKILL'))
    const redis = await redisClient(server)
    const dir = tempDir()
    cleanups.push(dir.remove)
    const s = await stackOver(dir.path, { tokens: () => createRedisTokensStore(redis) })
    await s.accounts.users.create({ username: 'alice', passwordHash: await hashPassword('pw'), name: '', email: '', groups: [], cardId: null })
    const { refresh_token } = await s.client.Login({ username: 'alice', password: 'pw', client_address: '127.0.0.1' })
    return { server, s, refresh_token, caller: { user_id: must((await s.accounts.users.findByUsername('alice'))).id, groups: [] } }
  }

  async function expectUnavailableFast (call: Promise<unknown>) {
    const started = performance.now()
    const err = await rpcError(call)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(err).toMatchObject({ status: 'UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE' })
  }

  it('answers UNAVAILABLE/SERVICE_UNAVAILABLE within 1 s when Redis is stopped', async () => {
    const { server, s, refresh_token, caller } = await redisStack()
    await server.stop('SIGTERM')
    await expectUnavailableFast(s.client.Refresh({ refresh_token }))
    await expectUnavailableFast(s.client.Revoke({ caller, refresh_token }))
    await expectUnavailableFast(s.client.Login({ username: 'alice', password: 'pw', client_address: '127.0.0.1' }))
  })

  it('answers UNAVAILABLE within 1 s when Redis hangs', async () => {
    const { server, s, refresh_token, caller } = await redisStack()
    server.process.kill('SIGSTOP')
    try {
      await expectUnavailableFast(s.client.Refresh({ refresh_token }))
      await expectUnavailableFast(s.client.Revoke({ caller, refresh_token }))
    } finally {
      server.process.kill('SIGCONT')
    }
  })
})
