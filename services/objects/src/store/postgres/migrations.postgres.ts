import type { Logger } from '@content/platform'
import { migratePostgres, type MigrateMode, type Migration, type MigrationReport } from '@content/platform/migrations'
import type { Postgres, Queryable } from '@content/platform/postgres'
import { MIGRATION_1, addOwnFieldColumns } from './schema.postgres.js'

/** The objects store's migrations, in order (@content/platform/migrations numbers and records them per schema). */
export const OBJECTS_MIGRATIONS: readonly Migration<Queryable>[] = [
  { version: 1, name: 'the objects store', up: async (q) => { await q.query(MIGRATION_1) } },
]

/**
 * Brings the store's schema (the connections' current schema: `public`, or the first of search_path) to
 * this release's version under the migration lock, or only checks it (MIGRATE_ON_START=false, and a store
 * opened after `admin migrate` or the start's own migration). Own fields added since get their column.
 */
export async function migrateObjects (postgres: Postgres, mode: MigrateMode, log?: Pick<Logger, 'info'>): Promise<MigrationReport> {
  const schema = (await postgres.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public'
  const report = await migratePostgres(postgres, { store: 'objects', schema, migrations: OBJECTS_MIGRATIONS, mode, ...(log ? { log } : {}) })
  if (mode === 'migrate') await postgres.query(addOwnFieldColumns())
  return report
}
