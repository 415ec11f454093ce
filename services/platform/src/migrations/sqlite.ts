import type { Logger } from 'pino'
import { checkMigrationList, pendingMigrations, reportOf, type MigrateMode, type Migration, type MigrationReport, type SchemaState } from './plan.js'

/** The part of a better-sqlite3 database the runner uses. */
export interface SqliteDatabase {
  readonly name: string
  exec(sql: string): unknown
  pragma(source: string, options?: { simple?: boolean }): unknown
}

/** A SQLite migration runs synchronously, inside the write transaction that records it. */
export type SqliteMigration<D extends SqliteDatabase> = Migration<D> & { up: (db: D) => void }

export interface SqliteMigrationSpec<D extends SqliteDatabase> {
  store: string
  migrations: readonly SqliteMigration<D>[]
  mode: MigrateMode
  /** whether an unversioned file holds the data of an earlier release (one of its tables exists) */
  earlierRelease: (db: D) => boolean
  log?: Pick<Logger, 'info' | 'warn'>
  /** how long to wait for another process's migration before giving up (ms) */
  lockWaitMs?: number
}

const BUSY = 'SQLITE_BUSY'
const PAUSE = new Int32Array(new SharedArrayBuffer(4))

/**
 * Versions a SQLite file in its header's `user_version` (what `sqlite3 file 'PRAGMA user_version'`
 * shows). Each migration runs in a `BEGIN IMMEDIATE` transaction that takes the file's write lock, reads
 * the version again, applies the migration and records it, so two processes opening one file apply it
 * once: the second waits, then finds it done. Synchronous, as the driver is.
 */
export function migrateSqlite<D extends SqliteDatabase> (db: D, spec: SqliteMigrationSpec<D>): MigrationReport {
  checkMigrationList(spec.store, spec.migrations)
  const version = () => Number(db.pragma('user_version', { simple: true }))
  const first: SchemaState = { version: version(), earlierRelease: false }
  first.earlierRelease = first.version === 0 && spec.earlierRelease(db)
  if (spec.mode === 'check') {
    pendingMigrations(spec.store, db.name, first, spec.migrations, 'check')
    return reportOf(spec.store, db.name, first, [])
  }
  const applied: SqliteMigration<D>[] = []
  for (;;) {
    beginImmediate(db, spec)
    try {
      const [next] = pendingMigrations(spec.store, db.name, { ...first, version: version() }, spec.migrations, 'migrate')
      if (next === undefined) {
        db.exec('COMMIT')
        break
      }
      spec.log?.info({ store: spec.store, version: next.version, migration: next.name }, 'applying a schema migration')
      next.up(db)
      db.pragma(`user_version = ${next.version}`)
      db.exec('COMMIT')
      applied.push(next)
    } catch (err) {
      db.exec('ROLLBACK')
      throw err
    }
  }
  // a second process that waited reports the versions it found, not the ones the first applied
  return { ...reportOf(spec.store, db.name, first, applied), to: version() }
}

/** Takes the write lock, waiting out another process's migration (the busy timeout waits each time). */
function beginImmediate (db: SqliteDatabase, spec: { store: string, lockWaitMs?: number, log?: Pick<Logger, 'warn'> }): void {
  const until = Date.now() + (spec.lockWaitMs ?? 600_000)
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE')
      return
    } catch (err) {
      if ((err as { code?: unknown }).code !== BUSY || Date.now() > until) throw err
      spec.log?.warn({ store: spec.store, file: db.name }, 'waiting for another process to finish with the file')
      // the busy timeout may be 0: a short pause, synchronously, as the driver is
      Atomics.wait(PAUSE, 0, 0, 100)
    }
  }
}
