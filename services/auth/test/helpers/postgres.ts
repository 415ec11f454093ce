import { createLogger } from '@content/platform'
import { migratePostgres } from '@content/platform/migrations'
import { openPostgres, type Postgres } from '@content/platform/postgres'
import { createTestDatabase } from '@content/platform/testing'
import { AUTH_POSTGRES_MIGRATIONS, AUTH_SCHEMA } from '../../src/store/postgres/schema.postgres.js'

const log = createLogger({ service: 'auth-test', level: 'silent' })

/** A database of the test's own on the machine's PostgreSQL, migrated to the auth schema; `drop` removes it. */
export async function tempPostgres (): Promise<{ db: Postgres, url: string, drop: () => Promise<void> }> {
  const database = await createTestDatabase('auth')
  const db = openPostgres({
    settings: { DATABASE_URL: database.url, PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: 5_000, PG_ACQUIRE_TIMEOUT_MS: 5_000 },
    applicationName: 'auth-test', log,
  })
  await migratePostgres(db, { store: 'auth', schema: AUTH_SCHEMA, migrations: AUTH_POSTGRES_MIGRATIONS, mode: 'migrate' })
  return { db, url: database.url, drop: async () => { await db.close(); await database.drop() } }
}
