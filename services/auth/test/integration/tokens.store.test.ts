import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '@content/platform'
import type { Redis } from 'ioredis'
import { createRedisClient, redisReady } from '../../src/store/redis/redis.client.js'
import { createRedisTokensStore, KEY_PREFIX } from '../../src/store/redis/tokens.redis.js'
import { createPostgresTokensStore } from '../../src/store/postgres/tokens.postgres.js'
import { openAuthDatabase } from '../../src/store/sqlite/database.js'
import { createSqliteTokensStore } from '../../src/store/sqlite/tokens.sqlite.js'
import { describeTokensStoreContract } from '../contract/tokens.contract.js'
import { tempPostgres } from '../helpers/postgres.js'
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js'
import { tempDir } from '../helpers/temp.js'

const log = createLogger({ service: 'auth-test', level: 'silent' })

describeTokensStoreContract('sqlite', async () => {
  const dir = tempDir()
  const db = openAuthDatabase(dir.path)
  return { store: createSqliteTokensStore(db), dispose: async () => { db.close(); dir.remove() } }
})

describeTokensStoreContract('postgres', async () => {
  const pg = await tempPostgres()
  return { store: createPostgresTokensStore(pg.db), dispose: pg.drop }
})

describe('redis adapter', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    server = await startRedisServer()
    redis = createRedisClient(server.url, log)
    expect(await redisReady(redis, 5_000)).toBe(true)
  })
  afterAll(async () => { redis.disconnect(); await server.stop() })

  describeTokensStoreContract('redis', async () => ({ store: createRedisTokensStore(redis), dispose: async () => undefined }))

  it('keeps every key under content:auth: with an expiry at the token\'s', async () => {
    const store = createRedisTokensStore(redis)
    const expiresAt = Date.now() + 60_000
    await store.issue({ hash: 'prefix-check', userId: 1, familyId: 'prefix-fam', expiresAt })
    await store.revokeFamily('prefix-fam', expiresAt)
    const keys = await redis.keys('*prefix-*')
    expect(keys.sort()).toEqual([`${KEY_PREFIX}family:prefix-fam`, `${KEY_PREFIX}rt:prefix-check`])
    for (const key of keys) expect(await redis.pexpiretime(key)).toBe(expiresAt)
  })
})
