import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { traceStatements, type Logger } from '@content/platform'
import { describeReport, migrateSqlite, type MigrateMode, type MigrationReport } from '@content/platform/migrations'
import Database from 'better-sqlite3'
import { AUTH_SQLITE_MIGRATIONS, earlierSqliteRelease } from './schema.sqlite.js'

export type SqliteDb = Database.Database

/** The auth service's one SQLite file under DATA_DIR, durable before a write is acknowledged; its schema as it is. */
export function openAuthFile (dataDir: string): SqliteDb {
  mkdirSync(dataDir, { recursive: true })
  const db = traceStatements(new Database(join(dataDir, 'auth.sqlite')))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  return db
}

/** Brings the file to this release's schema (`migrate`), or refuses it when it is not there (`check`). */
export function migrateAuthFile (db: SqliteDb, mode: MigrateMode, log?: Logger): MigrationReport {
  return migrateSqlite(db, { store: 'auth', migrations: AUTH_SQLITE_MIGRATIONS, mode, earlierRelease: earlierSqliteRelease, ...(log ? { log } : {}) })
}

/** The file, opened and at this release's schema version: migrated to it, or refused when it is not there and `mode` is `check`. */
export function openAuthDatabase (dataDir: string, mode: MigrateMode = 'migrate', log?: Logger): SqliteDb {
  const db = openAuthFile(dataDir)
  try {
    const report = migrateAuthFile(db, mode, log)
    log?.info({ store: 'auth', schemaVersion: report.to }, describeReport(report))
  } catch (err) {
    db.close()
    throw err
  }
  return db
}
