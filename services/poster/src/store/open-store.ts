import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { present, type Logger } from '@content/platform'
import { describeReport, migratePostgres, type MigrateMode, type MigrationReport } from '@content/platform/migrations'
import { followAvailability, openPostgres } from '@content/platform/postgres'
import type { PosterConfig, PosterStoreConfig } from '../config.js'
import type { MediaStore } from './media.store.js'
import { migrateLocalMedia } from './local/schema.local.js'
import { POSTER_POSTGRES_MIGRATIONS, POSTER_SCHEMA } from './postgres/schema.postgres.js'

/** The media store, opened at this release's schema, with what the service's readiness follows. */
export interface OpenedMedia {
  store: MediaStore
  report: MigrationReport
  /** Tells `onChange` whether the database can be reached (PostgreSQL only). */
  followAvailability(onChange: (available: boolean) => void): void
}

/** Uploads stage under DATA_DIR/media/staging whatever the store; what a crash left there goes at open. */
async function emptyStaging (dir: string): Promise<string> {
  const stagingDir = join(dir, 'staging')
  await mkdir(stagingDir, { recursive: true })
  for (const name of await readdir(stagingDir)) await rm(join(stagingDir, name), { recursive: true, force: true })
  return stagingDir
}

/** The PostgreSQL pool of the `poster` schema, migrated to (or checked at) this release's version. */
async function postgresAt (config: PosterStoreConfig, mode: MigrateMode, log: Logger) {
  const db = openPostgres({ settings: config, applicationName: 'content-poster', log })
  try {
    return { db, report: await migratePostgres(db, { store: 'poster', schema: POSTER_SCHEMA, migrations: POSTER_POSTGRES_MIGRATIONS, mode, log }) }
  } catch (err) {
    await db.close()
    throw err
  }
}

/** The GridFS database, its indexes migrated to (or checked at) this release's version. */
async function gridfsAt (config: PosterStoreConfig, mode: MigrateMode, log: Logger) {
  const [{ MongoClient }, { migrateGridfs }] = await Promise.all([import('mongodb'), import('./gridfs/schema.gridfs.js')])
  const client = new MongoClient(present(config.MONGODB_URL, 'MONGODB_URL'), { appName: 'content-poster' })
  try {
    return { client, report: await migrateGridfs(client.db(config.MONGODB_DB), mode, log) }
  } catch (err) {
    await client.close()
    throw err
  }
}

/**
 * The store the configuration names: files under DATA_DIR/media, the `poster` schema of PostgreSQL, or
 * GridFS; migrated at start (MIGRATE_ON_START, the default) or refused when not at this release's version.
 */
export async function openMediaStore (config: PosterConfig, log: Logger, now: () => number = Date.now): Promise<OpenedMedia> {
  const dir = join(config.DATA_DIR, 'media')
  const mode: MigrateMode = config.MIGRATE_ON_START ? 'migrate' : 'check'
  const thumbnailMaxBytes = config.THUMBNAIL_STORE_MAX_BYTES
  let opened: OpenedMedia
  if (config.MEDIA_STORE === 'postgres') {
    const { db, report } = await postgresAt(config, mode, log)
    const { openPostgresMediaStore } = await import('./postgres/postgres.store.js')
    let availability: { stop(): void } | undefined
    const store = await openPostgresMediaStore(db, { stagingDir: await emptyStaging(dir), thumbnailMaxBytes, now })
    opened = {
      store: { ...store, close: async () => { availability?.stop(); await store.close() } },
      report,
      followAvailability: (onChange) => { availability = followAvailability(db, { log, onChange }) },
    }
  } else if (config.MEDIA_STORE === 'gridfs') {
    const { client, report } = await gridfsAt(config, mode, log)
    const { openGridfsStore } = await import('./gridfs/gridfs.store.js')
    opened = { store: await openGridfsStore(client, config.MONGODB_DB, { stagingDir: await emptyStaging(dir), thumbnailMaxBytes, now }), report, followAvailability: () => {} }
  } else {
    const report = await migrateLocalMedia(dir, mode, log)
    const { openLocalStore } = await import('./local/local.store.js')
    opened = { store: await openLocalStore(dir, { thumbnailMaxBytes, now }), report, followAvailability: () => {} }
  }
  log.info({ store: config.MEDIA_STORE, schemaVersion: opened.report.to }, describeReport(opened.report))
  return opened
}

/** `admin migrate` for the poster service: its media store brought to this release's schema. */
export async function migrateMediaStore (config: PosterStoreConfig, log: Logger): Promise<MigrationReport[]> {
  if (config.MEDIA_STORE === 'postgres') {
    const { db, report } = await postgresAt(config, 'migrate', log)
    await db.close()
    return [report]
  }
  if (config.MEDIA_STORE === 'gridfs') {
    const { client, report } = await gridfsAt(config, 'migrate', log)
    await client.close()
    return [report]
  }
  return [await migrateLocalMedia(join(config.DATA_DIR, 'media'), 'migrate', log)]
}
