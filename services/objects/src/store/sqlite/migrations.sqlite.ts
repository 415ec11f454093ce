import type { Logger } from '@content/platform'
import { MIGRATE_COMMAND, SchemaVersionError, migrateSqlite, type MigrateMode, type MigrationReport, type SqliteMigration } from '@content/platform/migrations'
import type Database from 'better-sqlite3'
import { ensureKeptCounts } from './kept-counts.sqlite.js'
import { ensureListIndexes } from './list-indexes.sqlite.js'
import { ensureRevisions } from './revisions.sqlite.js'
import { SCHEMA, addOwnFieldColumns, missingOwnFields } from './schema.sqlite.js'
import { ensureSubtreeOrder } from './subtree-order.sqlite.js'
import { ensureTextIndex } from './text-index.sqlite.js'
import { ensureTrash } from './trash.sqlite.js'

/**
 * The objects store's SQLite schema, version by version (the file's `user_version`). Version 1 is the
 * schema of the last release before versions, which made it on open, idempotently: on such a file it
 * finds everything in place (and completes a file of an older release as that release did). A change of
 * the schema from here on is a new version appended to this list, applied once under the file's lock.
 */
export const OBJECTS_SQLITE_MIGRATIONS: SqliteMigration<Database.Database>[] = [
  {
    version: 1,
    name: 'objects, tree, relations, outbox, kept counts, text index, trash, revisions',
    up (db) {
      db.exec(SCHEMA)
      // a file of a release older than the last adds the columns that release added on open
      addOwnFieldColumns(db)
      ensureListIndexes(db)
      ensureTextIndex(db)
      ensureSubtreeOrder(db)
      ensureKeptCounts(db)
      ensureTrash(db)
      ensureRevisions(db)
    },
  },
  {
    version: 2,
    // decisions §17: the live streams decide per caller from the event alone (change-events.ts AccessSnapshot)
    name: "the outbox records each event's object access",
    up (db) {
      // a file marked as of an earlier release may already have it (one written by this release, its mark reset)
      const columns = db.prepare('SELECT name FROM pragma_table_info(\'changes\')').pluck().all()
      if (!columns.includes('access')) db.exec('ALTER TABLE changes ADD COLUMN access TEXT')
    },
  },
]

/** A file with the objects table but no recorded version: an earlier release wrote it. */
const earlierRelease = (db: Database.Database): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'objects'").get() !== undefined

/**
 * Brings the file to this release's schema (`migrate`), or refuses it when it is not there (`check`). Past
 * the numbered versions, the objects table has a column for every own field of OWN_FIELDS: `migrate` adds
 * the columns of fields added since (each with its kind's default, instantly), `check` refuses a file
 * without them.
 */
export function migrateObjectsFile (db: Database.Database, mode: MigrateMode, log?: Logger): MigrationReport {
  const report = migrateSqlite(db, { store: 'objects', migrations: OBJECTS_SQLITE_MIGRATIONS, mode, earlierRelease, ...(log ? { log } : {}) })
  const missing = missingOwnFields(db)
  if (missing.length === 0) return report
  if (mode === 'check') {
    throw new SchemaVersionError(`the objects store (${db.name}) has no column yet for the own fields ${missing.join(', ')}: run \`${MIGRATE_COMMAND}\` with this release's settings, or start with MIGRATE_ON_START=true`)
  }
  log?.info({ store: 'objects', fields: missing }, 'adding the columns of new own fields')
  db.transaction(() => { addOwnFieldColumns(db) }).immediate()
  return report
}
