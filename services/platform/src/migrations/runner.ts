import type { Logger } from 'pino'
import { checkMigrationList, pendingMigrations, reportOf, type MigrateMode, type Migration, type MigrationReport, type SchemaState } from './plan.js'

/** How one kind of store keeps its version and its lock. */
export interface SchemaBackend<Target> {
  /** where the store is, for messages (never a password) */
  readonly location: string
  /** Runs `work` holding the store's migration lock; a second process waits until the first is done. */
  locked<T>(work: () => Promise<T>): Promise<T>
  state(): Promise<SchemaState>
  /** Runs `migration` and records its version: atomically where the store has transactions. */
  apply(migration: Migration<Target>): Promise<void>
}

export interface MigrationSpec<Target> {
  /** the store's name in messages and records: `auth`, `objects`, `poster` */
  store: string
  migrations: readonly Migration<Target>[]
  mode: MigrateMode
  /** told each migration as it starts */
  log?: Pick<Logger, 'info'>
}

/**
 * Brings a store to the latest version of `spec.migrations` under its lock (`migrate`), or only checks
 * that it is there (`check`, no lock). Throws SchemaVersionError for a store it must not touch.
 */
export async function runMigrations<Target> (backend: SchemaBackend<Target>, spec: MigrationSpec<Target>): Promise<MigrationReport> {
  checkMigrationList(spec.store, spec.migrations)
  if (spec.mode === 'check') {
    const state = await backend.state()
    pendingMigrations(spec.store, backend.location, state, spec.migrations, 'check')
    return reportOf(spec.store, backend.location, state, [])
  }
  return backend.locked(async () => {
    const state = await backend.state()
    const pending = pendingMigrations(spec.store, backend.location, state, spec.migrations, 'migrate')
    for (const migration of pending) {
      spec.log?.info({ store: spec.store, version: migration.version, migration: migration.name }, 'applying a schema migration')
      await backend.apply(migration)
    }
    return reportOf(spec.store, backend.location, state, pending)
  })
}
