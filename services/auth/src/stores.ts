import { present, type Logger } from '@content/platform'
import { describeReport, migrateMongo, migratePostgres, type MigrateMode, type MigrationReport } from '@content/platform/migrations'
import { followAvailability, openPostgres } from '@content/platform/postgres'
import { MongoClient } from 'mongodb'
import type { Redis } from 'ioredis'
import type { AuthConfig, AuthStoreConfig } from './config.js'
import type { AccountsStore } from './store/accounts.store.js'
import type { TokensStore } from './store/tokens.store.js'
import type { TicketsStore } from './store/tickets.store.js'
import { createSqliteTicketsStore } from './store/sqlite/tickets.sqlite.js'
import { createPostgresTicketsStore } from './store/postgres/tickets.postgres.js'
import { createRedisTicketsStore } from './store/redis/tickets.redis.js'
import type { FailureLimiter } from './services/login-limiter.js'
import { createMongoAccountsStore } from './store/mongo/accounts.mongo.js'
import { AUTH_MONGO_MIGRATIONS, earlierMongoRelease } from './store/mongo/schema.mongo.js'
import { createPostgresAccountsStore } from './store/postgres/accounts.postgres.js'
import { AUTH_POSTGRES_MIGRATIONS, AUTH_SCHEMA } from './store/postgres/schema.postgres.js'
import { createPostgresTokensStore } from './store/postgres/tokens.postgres.js'
import { createRedisLoginLimiter } from './store/redis/login-limits.redis.js'
import { createRedisClient, redisReady } from './store/redis/redis.client.js'
import { createRedisTokensStore } from './store/redis/tokens.redis.js'
import { createSqliteAccountsStore } from './store/sqlite/accounts.sqlite.js'
import { migrateAuthFile, openAuthFile } from './store/sqlite/database.js'
import { createSqliteTokensStore } from './store/sqlite/tokens.sqlite.js'

export interface AuthStores {
  accounts: AccountsStore
  tokens: TokensStore
  /** live-stream tickets (decisions §17): beside the refresh tokens */
  tickets: TicketsStore
  /** failed logins counted across replicas (Redis); absent = each process counts its own */
  limiter?: FailureLimiter
  /** Tells `onChange` whether the database can be reached, for the service's readiness (PostgreSQL only). */
  followAvailability(onChange: (available: boolean) => void): void
  /** Closes every client this opened. */
  close(): Promise<void>
}

/** One store this process opened: its ports, its schema report, how to close it. */
interface Opened {
  accounts: AccountsStore
  /** refresh-token state in the same store, for when Redis does not hold it */
  tokens: () => TokensStore
  /** live-stream tickets in the same store, for when Redis does not hold them */
  tickets: () => TicketsStore
  report: MigrationReport
  followAvailability?: AuthStores['followAvailability']
  close(): Promise<void>
}

/** auth.sqlite under DATA_DIR, at this release's schema (or refused). */
function openSqlite (config: AuthStoreConfig, mode: MigrateMode, log: Logger): Opened {
  const db = openAuthFile(config.DATA_DIR)
  try {
    const report = migrateAuthFile(db, mode, log)
    return { accounts: createSqliteAccountsStore(db), tokens: () => createSqliteTokensStore(db), tickets: () => createSqliteTicketsStore(db), report, close: async () => { db.close() } }
  } catch (err) {
    db.close()
    throw err
  }
}

/** The `auth` schema of DATABASE_URL, at this release's schema (or refused). */
async function openPostgresStore (config: AuthStoreConfig, mode: MigrateMode, log: Logger): Promise<Opened> {
  const db = openPostgres({ settings: config, applicationName: 'content-auth', log })
  try {
    const report = await migratePostgres(db, { store: 'auth', schema: AUTH_SCHEMA, migrations: AUTH_POSTGRES_MIGRATIONS, mode, log })
    let availability: { stop(): void } | undefined
    return {
      accounts: createPostgresAccountsStore(db),
      tokens: () => createPostgresTokensStore(db),
      tickets: () => createPostgresTicketsStore(db),
      report,
      followAvailability: (onChange) => { availability = followAvailability(db, { log, onChange }) },
      close: async () => { availability?.stop(); await db.close() },
    }
  } catch (err) {
    await db.close()
    throw err
  }
}

/** The auth part of MONGODB_DB, at this release's indexes (or refused); refresh tokens stay in auth.sqlite. */
async function openMongo (config: AuthStoreConfig, mode: MigrateMode, log: Logger): Promise<Opened> {
  const client = await MongoClient.connect(present(config.MONGODB_URL, 'MONGODB_URL'), { appName: 'content-auth' })
  try {
    const db = client.db(config.MONGODB_DB)
    const report = await migrateMongo(db, { store: 'auth', migrations: AUTH_MONGO_MIGRATIONS, mode, earlierRelease: earlierMongoRelease, log })
    let sqlite: Opened | undefined
    return {
      accounts: createMongoAccountsStore(client, db),
      tokens: () => {
        sqlite ??= openSqlite(config, mode, log)
        return sqlite.tokens()
      },
      tickets: () => {
        sqlite ??= openSqlite(config, mode, log)
        return sqlite.tickets()
      },
      report,
      close: async () => { await sqlite?.close(); await client.close() },
    }
  } catch (err) {
    await client.close()
    throw err
  }
}

function openAccounts (config: AuthStoreConfig, mode: MigrateMode, log: Logger): Opened | Promise<Opened> {
  if (config.STORE === 'postgres') return openPostgresStore(config, mode, log)
  if (config.STORE === 'mongodb') return openMongo(config, mode, log)
  return openSqlite(config, mode, log)
}

/**
 * Accounts in SQLite (`DATA_DIR/auth.sqlite`), PostgreSQL (the `auth` schema) or MongoDB per STORE, at this
 * release's schema: migrated at start (MIGRATE_ON_START, the default) or refused when not there.
 * Refresh-token state in Redis when REDIS_URL is set, else in the accounts' store (auth.sqlite beside
 * MongoDB); failed logins in Redis too, else in memory.
 */
export async function openStores (config: AuthConfig, log: Logger): Promise<AuthStores> {
  const mode: MigrateMode = config.MIGRATE_ON_START ? 'migrate' : 'check'
  const opened = await openAccounts(config, mode, log)
  log.info({ store: config.STORE, schemaVersion: opened.report.to }, describeReport(opened.report))
  let redis: Redis | undefined
  let tokens: TokensStore
  let tickets: TicketsStore
  let limiter: FailureLimiter | undefined
  if (config.REDIS_URL) {
    redis = createRedisClient(config.REDIS_URL, log)
    // Until Redis answers, refresh and revoke fail closed; logins of accounts still work up to issuing.
    if (!await redisReady(redis, 5_000)) log.warn('redis not ready yet; token operations fail until it is')
    tokens = createRedisTokensStore(redis)
    tickets = createRedisTicketsStore(redis)
    limiter = createRedisLoginLimiter(redis, { maxFailures: config.LOGIN_MAX_FAILURES, windowMs: config.LOGIN_FAILURE_WINDOW * 1000 })
  } else {
    tokens = opened.tokens()
    tickets = opened.tickets()
  }
  const { accounts } = opened

  return {
    accounts,
    tokens,
    tickets,
    ...(limiter ? { limiter } : {}),
    followAvailability: opened.followAvailability ?? (() => {}),
    async close () {
      await tokens.close()
      await accounts.close()
      const client = redis
      if (client) await client.quit().catch(() => client.disconnect())
      await opened.close()
    },
  }
}

/**
 * `admin migrate` for the auth service: every store its settings name, brought to this release's schema
 * (the refresh-token file too where MongoDB holds the accounts without Redis).
 */
export async function migrateStores (config: AuthStoreConfig, log: Logger): Promise<MigrationReport[]> {
  const opened = await openAccounts(config, 'migrate', log)
  try {
    const reports = [opened.report]
    if (config.STORE === 'mongodb' && !config.REDIS_URL) {
      const tokensFile = openSqlite(config, 'migrate', log)
      reports.push(tokensFile.report)
      await tokensFile.close()
    }
    return reports
  } finally {
    await opened.close()
  }
}
