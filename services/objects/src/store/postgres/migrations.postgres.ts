import { migratePostgres, type MigrateMode, type Migration } from '@content/platform/migrations'
import type { Postgres, Queryable } from '@content/platform/postgres'
import type { Logger } from '@content/platform'
import { MIGRATION_1, addOwnFieldColumns } from './schema.postgres.js'

/** The objects store's migrations, in order (@content/platform/migrations numbers and records them per schema). */
export const OBJECTS_MIGRATIONS: readonly Migration<Queryable>[] = [
  { version: 1, name: 'the objects store', up: async (q) => { await q.query(MIGRATION_1) } },
]

/**
 * Brings the store's schema (the connection's current schema) to this release's version under the
 * migration lock, or only checks it (MIGRATE_ON_START=false). Own fields added since get their column.
 */
export async function migrateObjects (postgres: Postgres, schema: string, mode: MigrateMode, log?: Pick<Logger, 'info'>): Promise<void> {
  await migratePostgres(postgres, { store: 'objects', schema, migrations: OBJECTS_MIGRATIONS, mode, ...(log ? { log } : {}) })
  if (mode === 'migrate') await postgres.query(addOwnFieldColumns())
}
