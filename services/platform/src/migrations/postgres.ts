import type pg from 'pg'
import type { Postgres, Queryable } from '../postgres/database.js'
import type { MigrationReport } from './plan.js'
import { runMigrations, type MigrationSpec, type SchemaBackend } from './runner.js'

/** A double-quoted SQL identifier. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`

export interface PostgresMigrationSpec extends MigrationSpec<Queryable> {
  /** the PostgreSQL schema (namespace) the store's tables live in; its `schema_migrations` table records the versions */
  schema: string
  /** whether an unversioned schema holds the data of an earlier release (none so far: PostgreSQL stores begin versioned) */
  earlierRelease?: (client: Queryable) => Promise<boolean>
}

/**
 * Versions the tables of one PostgreSQL schema in its `schema_migrations` table (version, name, applied_at).
 * The migration lock is a session advisory lock keyed by the schema's name, held on one connection for the
 * whole run (a session of its own, ended after, which releases it): a second process waits on it, then finds
 * the migrations done; a process that dies releases it with its connection. Each migration and its record
 * commit in one transaction. The session runs without the pool's statement timeout: a migration (an index
 * build, a back-fill) may take long.
 */
export async function migratePostgres (db: Postgres, spec: PostgresMigrationSpec): Promise<MigrationReport> {
  const schema = quoteIdent(spec.schema)
  const table = `${schema}.schema_migrations`
  const session = await db.session()
  try {
    return await runMigrations(backendOn(session, spec, table, schema), spec)
  } finally {
    // ending the session releases the lock whatever happened on it
    await session.end().catch(() => undefined)
  }
}

function backendOn (client: pg.Client, spec: PostgresMigrationSpec, table: string, schema: string): SchemaBackend<Queryable> {
  const lockKey = `content-migrations:${spec.schema}`
  return {
    location: `PostgreSQL schema ${spec.schema}`,
    async locked (work) {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey])
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
      return work()
    },
    async state () {
      const exists = await client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${schema}.schema_migrations`])
      if (exists.rows[0]?.found == null) return { version: 0, earlierRelease: await spec.earlierRelease?.(client) ?? false }
      const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${table}`)
      const version = rows[0]?.version ?? 0
      return { version, earlierRelease: version === 0 && (await spec.earlierRelease?.(client) ?? false) }
    },
    async apply (migration) {
      await client.query('BEGIN')
      try {
        await migration.up(client)
        await client.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      }
    },
  }
}
