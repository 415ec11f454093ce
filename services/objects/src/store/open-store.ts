import { join } from 'node:path'
import type { Logger } from '@content/platform'
import type { ObjectsConfig } from '../config.js'
import type { ObjectsStore } from '../core/ports.js'
import { openSqliteStore } from './sqlite/sqlite.store.js'

/** The store the configuration names: SQLite under DATA_DIR, PostgreSQL (DATABASE_URL), or MongoDB (replica set). */
export async function openStore (config: ObjectsConfig, log: Logger): Promise<ObjectsStore> {
  const options = { publicationNickname: config.PUBLICATION_NICKNAME, sqliteCacheMb: config.SQLITE_CACHE_MB, revisionsKeep: config.REVISIONS_KEEP ?? null }
  if (config.STORE === 'mongodb') {
    // The config schema already refuses STORE=mongodb without MONGODB_URL; this guards other callers.
    if (!config.MONGODB_URL) throw new Error('MONGODB_URL: required when STORE=mongodb')
    const [{ MongoClient }, { openMongoStore }, { MONGO_CLIENT_OPTIONS }] = await Promise.all([import('mongodb'), import('./mongo/mongo.store.js'), import('./mongo/client.mongo.js')])
    const storeLog = log.child({ store: 'mongodb' })
    // The one client of the process; the store closes it on close().
    const client = new MongoClient(config.MONGODB_URL, MONGO_CLIENT_OPTIONS)
    return openMongoStore(client, config.MONGODB_DB, {
      ...options,
      onWatchError: (err) => storeLog.error({ err }, 'change stream failed; reopening it'),
    })
  }
  if (config.STORE === 'postgres') {
    const [{ openPostgres }, { openPostgresStore }] = await Promise.all([import('@content/platform/postgres'), import('./postgres/postgres.store.js')])
    const storeLog = log.child({ store: 'postgres' })
    // the one pool of the process; the store ends it on close()
    const postgres = openPostgres({ settings: config, applicationName: 'content-objects', log: storeLog })
    return openPostgresStore(postgres, { ...options, settings: config, migrate: config.MIGRATE_ON_START ? 'migrate' : 'check', log: storeLog })
  }
  const storeLog = log.child({ store: 'sqlite' })
  return openSqliteStore(join(config.DATA_DIR, 'objects.sqlite'), {
    ...options, onBackgroundError: (err, what) => storeLog.error({ err }, what),
  })
}
