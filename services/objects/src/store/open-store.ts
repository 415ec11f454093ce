import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { present, type Logger } from '@content/platform'
import { describeReport, type MigrateMode, type MigrationReport } from '@content/platform/migrations'
import Database from 'better-sqlite3'
import type { ObjectsConfig, ObjectsStoreConfig } from '../config.js'
import type { ObjectsStore } from '../core/ports.js'
import { migrateObjectsFile } from './sqlite/migrations.sqlite.js'
import { applyPragmas, registerFunctions } from './sqlite/schema.sqlite.js'
import { openSqliteStore } from './sqlite/sqlite.store.js'

/** The process's PostgreSQL pool (@content/platform/postgres) for the objects store, its connections in the store's schema. */
async function postgresOf (config: ObjectsStoreConfig, log: Logger) {
  const [{ openPostgres }, { storeUrl }] = await Promise.all([import('@content/platform/postgres'), import('./postgres/migrations.postgres.js')])
  const settings = { ...config, DATABASE_URL: storeUrl(present(config.DATABASE_URL, 'DATABASE_URL')) }
  return openPostgres({ settings, applicationName: 'content-objects', log: log.child({ store: 'postgres' }) })
}

/**
 * The store's schema brought to this release's version (`migrate`) or checked to be there (`check`),
 * on a connection of its own that is closed after.
 */
async function schemaAt (config: ObjectsStoreConfig, mode: MigrateMode, log: Logger): Promise<MigrationReport> {
  if (config.STORE === 'mongodb') {
    const [{ MongoClient }, { migrateObjectsMongo }] = await Promise.all([import('mongodb'), import('./mongo/schema.mongo.js')])
    const client = new MongoClient(present(config.MONGODB_URL, 'MONGODB_URL'), { appName: 'content-objects' })
    try {
      return await migrateObjectsMongo(client.db(config.MONGODB_DB), mode, log)
    } finally {
      await client.close()
    }
  }
  if (config.STORE === 'postgres') {
    const { migrateObjects } = await import('./postgres/migrations.postgres.js')
    const postgres = await postgresOf(config, log)
    try {
      return await migrateObjects(postgres, mode, log)
    } finally {
      await postgres.close()
    }
  }
  mkdirSync(config.DATA_DIR, { recursive: true })
  const db = new Database(join(config.DATA_DIR, 'objects.sqlite'))
  try {
    applyPragmas(db, config.SQLITE_CACHE_MB)
    registerFunctions(db)
    return migrateObjectsFile(db, mode, log)
  } finally {
    db.close()
  }
}

/** `admin migrate` for the objects service: its store brought to this release's schema. */
export async function migrateStore (config: ObjectsStoreConfig, log: Logger): Promise<MigrationReport[]> {
  return [await schemaAt(config, 'migrate', log)]
}

/** The objects store, opened at this release's schema, and what the service's readiness follows. */
export interface OpenedStore {
  store: ObjectsStore
  /**
   * Tells `onChange` whether the database can be reached: false during an outage, true once it answers
   * again (PostgreSQL; SQLite's file is always there, and MongoDB's driver finds another member itself).
   */
  followAvailability(onChange: (available: boolean) => void): { stop(): void }
}

const alwaysAvailable = () => ({ stop: () => {} })

/**
 * The store the configuration names: SQLite under DATA_DIR, PostgreSQL (DATABASE_URL), or MongoDB
 * (replica set), at this release's schema version: migrated at start (MIGRATE_ON_START, the default) or
 * refused when not there.
 */
export async function openStore (config: ObjectsConfig, log: Logger): Promise<OpenedStore> {
  const report = await schemaAt(config, config.MIGRATE_ON_START ? 'migrate' : 'check', log)
  log.info({ store: config.STORE, schemaVersion: report.to }, describeReport(report))
  const options = { publicationNickname: config.PUBLICATION_NICKNAME, sqliteCacheMb: config.SQLITE_CACHE_MB, revisionsKeep: config.REVISIONS_KEEP ?? null }
  if (config.STORE === 'mongodb') {
    const [{ MongoClient }, { openMongoStore }, { MONGO_CLIENT_OPTIONS }] = await Promise.all([import('mongodb'), import('./mongo/mongo.store.js'), import('./mongo/client.mongo.js')])
    const storeLog = log.child({ store: 'mongodb' })
    // The one client of the process; the store closes it on close().
    const client = new MongoClient(present(config.MONGODB_URL, 'MONGODB_URL'), MONGO_CLIENT_OPTIONS)
    const store = await openMongoStore(client, config.MONGODB_DB, {
      ...options,
      onWatchError: (err) => storeLog.error({ err }, 'change stream failed; reopening it'),
    })
    return { store, followAvailability: alwaysAvailable }
  }
  if (config.STORE === 'postgres') {
    const [{ openPostgresStore }, { followAvailability }] = await Promise.all([import('./postgres/postgres.store.js'), import('@content/platform/postgres')])
    const storeLog = log.child({ store: 'postgres' })
    // the one pool of the process; the store ends it on close(). The schema was brought to its version above.
    const postgres = await postgresOf(config, log)
    const store = await openPostgresStore(postgres, {
      ...options, migrate: 'check', log: storeLog, onBackgroundError: (err, what) => storeLog.error({ err }, what),
    })
    return { store, followAvailability: (onChange) => followAvailability(postgres, { log: storeLog, onChange }) }
  }
  const storeLog = log.child({ store: 'sqlite' })
  const store = openSqliteStore(join(config.DATA_DIR, 'objects.sqlite'), {
    ...options, onBackgroundError: (err, what) => storeLog.error({ err }, what),
  })
  return { store, followAvailability: alwaysAvailable }
}
