import type { Logger } from '@content/platform'
import { OWN_FIELD_NAMES } from '@content/api-schema'
import { MIGRATE_COMMAND, SchemaVersionError, migratePostgres, type MigrateMode, type Migration, type MigrationReport } from '@content/platform/migrations'
import type { Postgres, Queryable } from '@content/platform/postgres'
import { MIGRATION_1, addOwnFieldColumns } from './schema.postgres.js'

/** A double-quoted SQL identifier. */
const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`

/** The schema the objects service keeps its tables in, beside auth's and poster's in one database. */
export const OBJECTS_SCHEMA = 'objects'

/** `search_path` of the store's connections: its schema, then public (where pg_trgm may be installed already). */
const searchPath = (schema: string): string => `${quoteIdent(schema)}, public`

/**
 * The database URL whose connections name the store's tables in its schema: its search_path given at
 * connect (libpq's `options`), before any statement.
 */
export function storeUrl (url: string, schema = OBJECTS_SCHEMA): string {
  const u = new URL(url)
  u.searchParams.set('options', `${u.searchParams.get('options') ?? ''} -c search_path=${schema},public`.trim())
  return u.toString()
}

/**
 * The objects store's migrations, in order (@content/platform/migrations numbers and records them per
 * schema); each writes its unqualified names into the store's schema (the migration's own search_path).
 */
const migrations = (schema: string): readonly Migration<Queryable>[] => [
  { version: 1, name: 'the objects store', up: async (q) => { await q.query(`SET LOCAL search_path TO ${searchPath(schema)}`); await q.query(MIGRATION_1) } },
  // decisions §17: the live streams decide per caller from the event alone (change-events.ts AccessSnapshot)
  { version: 2, name: "the outbox records each event's object access", up: async (q) => { await q.query(`ALTER TABLE ${quoteIdent(schema)}.changes ADD COLUMN IF NOT EXISTS access text`) } },
]

/**
 * Brings the store's schema to this release's version under the migration lock, or only checks it
 * (MIGRATE_ON_START=false, and a store opened after `admin migrate` or the start's own migration). Own
 * fields added since get their column.
 */
export async function migrateObjects (postgres: Postgres, mode: MigrateMode, log?: Pick<Logger, 'info'>, schema = OBJECTS_SCHEMA): Promise<MigrationReport> {
  const report = await migratePostgres(postgres, { store: 'objects', schema, migrations: migrations(schema), mode, ...(log ? { log } : {}) })
  if (mode === 'migrate') {
    await postgres.query(addOwnFieldColumns(quoteIdent(schema)))
    return report
  }
  const present = new Set((await postgres.query<{ c: string }>('SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', [schema, 'objects'])).rows.map((r) => r.c))
  const missing = OWN_FIELD_NAMES.filter((f) => !present.has(f))
  if (missing.length > 0) throw new SchemaVersionError(`the objects store (PostgreSQL schema ${schema}) has no column yet for the own fields ${missing.join(', ')}: run \`${MIGRATE_COMMAND}\``)
  return report
}
