import type { Logger } from '@content/platform'
import { MongoClient } from 'mongodb'
import type { Redis } from 'ioredis'
import { present } from '@content/platform'
import type { AuthConfig } from './config.js'
import type { AccountsStore } from './store/accounts.store.js'
import type { TokensStore } from './store/tokens.store.js'
import type { FailureLimiter } from './services/login-limiter.js'
import { createMongoAccountsStore } from './store/mongo/accounts.mongo.js'
import { createRedisLoginLimiter } from './store/redis/login-limits.redis.js'
import { createRedisClient, redisReady } from './store/redis/redis.client.js'
import { createRedisTokensStore } from './store/redis/tokens.redis.js'
import { createSqliteAccountsStore } from './store/sqlite/accounts.sqlite.js'
import { openAuthDatabase, type SqliteDb } from './store/sqlite/database.js'
import { createSqliteTokensStore } from './store/sqlite/tokens.sqlite.js'

export interface AuthStores {
  accounts: AccountsStore
  tokens: TokensStore
  /** failed logins counted across replicas (Redis); absent = each process counts its own */
  limiter?: FailureLimiter
  /** Closes every client this opened. */
  close(): Promise<void>
}

/**
 * Accounts in SQLite (`DATA_DIR/auth.sqlite`) or MongoDB per STORE; refresh-token state in Redis
 * when REDIS_URL is set, else in the same SQLite file; failed logins in Redis too, else in memory.
 */
export async function openStores (config: AuthConfig, log: Logger): Promise<AuthStores> {
  let sqlite: SqliteDb | undefined
  const db = () => (sqlite ??= openAuthDatabase(config.DATA_DIR))
  let mongo: MongoClient | undefined
  let redis: Redis | undefined

  let accounts: AccountsStore
  if (config.STORE === 'mongodb') {
    mongo = await MongoClient.connect(present(config.MONGODB_URL, 'MONGODB_URL'))
    accounts = await createMongoAccountsStore(mongo, mongo.db(config.MONGODB_DB))
  } else {
    accounts = createSqliteAccountsStore(db())
  }

  let tokens: TokensStore
  let limiter: FailureLimiter | undefined
  if (config.REDIS_URL) {
    redis = createRedisClient(config.REDIS_URL, log)
    // Until Redis answers, refresh and revoke fail closed; logins of accounts still work up to issuing.
    if (!await redisReady(redis, 5_000)) log.warn('redis not ready yet; token operations fail until it is')
    tokens = createRedisTokensStore(redis)
    limiter = createRedisLoginLimiter(redis, { maxFailures: config.LOGIN_MAX_FAILURES, windowMs: config.LOGIN_FAILURE_WINDOW * 1000 })
  } else {
    tokens = createSqliteTokensStore(db())
  }

  return {
    accounts,
    tokens,
    ...(limiter ? { limiter } : {}),
    async close () {
      await tokens.close()
      await accounts.close()
      const client = redis
      if (client) await client.quit().catch(() => client.disconnect())
      if (mongo) await mongo.close()
      sqlite?.close()
    },
  }
}
