import type { Db } from './db.postgres.js'
import { MIGRATIONS, addOwnFieldColumns } from './schema.postgres.js'

/**
 * The objects store's schema versions: `schema_migrations` records each migration applied, and the
 * migrations run at open, in order, each in its own transaction, under a session advisory lock, so two
 * processes opening one database at once migrate it once (the second waits, then finds it done). A
 * store whose version is past this code's is refused: this code does not know how to read it.
 */
const MIGRATION_LOCK = 4_801_000

export async function migrate (db: Db): Promise<number> {
  await db.one(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`)
  try {
    await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
    const current = (await db.one<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations'))?.v ?? 0
    if (current > MIGRATIONS.length) throw new Error(`the objects store is at schema version ${current}; this code reads versions up to ${MIGRATIONS.length}`)
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await db.exec(`BEGIN; ${MIGRATIONS[version - 1]}; INSERT INTO schema_migrations (version) VALUES (${version}); COMMIT;`)
    }
    await db.exec(addOwnFieldColumns())
    return MIGRATIONS.length
  } catch (err) {
    await db.exec('ROLLBACK').catch(() => {})
    throw err
  } finally {
    await db.one(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`)
  }
}
