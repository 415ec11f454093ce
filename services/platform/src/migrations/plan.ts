/**
 * Versioned schemas, the part every store shares: numbered migrations, what a store's recorded version
 * means for this release, and the messages that say what to run. Pure; the runners per store kind
 * (sqlite.ts, postgres.ts, mongo.ts, directory.ts) read and record the version under their lock.
 */

/** One step of a store's schema. Versions count from 1 without gaps; a migration runs once per store. */
export interface Migration<Target> {
  version: number
  /** what it does, in a few words (shown when it runs) */
  name: string
  up: (target: Target) => Promise<void> | void
}

/** A migration as the plan sees it: its place and name. */
export type Numbered = Pick<Migration<never>, 'version' | 'name'>

/** What a store records. */
export interface SchemaState {
  /** the last migration applied; 0 when none is recorded */
  version: number
  /** nothing recorded, but the store holds data: written by a release from before schema versions */
  earlierRelease: boolean
}

/** `migrate` applies what is missing (MIGRATE_ON_START=true, `admin migrate`); `check` only refuses a store it cannot run on. */
export type MigrateMode = 'migrate' | 'check'

export interface MigrationReport {
  /** the store's name in messages: `auth`, `objects`, `poster` … */
  store: string
  /** where it is: a file, a database schema, a directory */
  location: string
  from: number
  to: number
  applied: { version: number, name: string }[]
  earlierRelease: boolean
}

/** The command that brings every store of a deployment to this release's schema. */
export const MIGRATE_COMMAND = 'npm run admin -- migrate'

/** A store this release must not run on as it is; the message says what to do. */
export class SchemaVersionError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SchemaVersionError'
  }
}

/** The list's versions must be 1, 2, 3 … in order: anything else is a mistake in the code. */
export function checkMigrationList (store: string, migrations: readonly Numbered[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${store} migrations: expected version ${i + 1} at position ${i + 1}, found ${m.version}`)
  })
}

const latestVersion = (migrations: readonly Numbered[]): number => migrations.length

/**
 * The migrations `state` still lacks, in order; throws SchemaVersionError for a store newer than this
 * release knows, and in `check` mode for a store that lacks any.
 */
export function pendingMigrations<M extends Numbered> (
  store: string, location: string, state: SchemaState, migrations: readonly M[], mode: MigrateMode,
): M[] {
  const latest = latestVersion(migrations)
  if (state.version > latest) {
    throw new SchemaVersionError(`the ${store} store (${location}) has schema version ${state.version}, newer than this release knows ` +
      `(${latest}): run the release that wrote it, or restore a backup taken before the upgrade`)
  }
  const pending = migrations.slice(state.version)
  if (mode === 'check' && pending.length > 0) throw new SchemaVersionError(`${describeState(store, location, state, latest)}: run \`${MIGRATE_COMMAND}\` with this release's settings, or start with MIGRATE_ON_START=true`)
  return pending
}

function describeState (store: string, location: string, state: SchemaState, latest: number): string {
  const where = `the ${store} store (${location})`
  if (state.earlierRelease) return `${where} was written by a release from before schema versions; this release needs version ${latest}`
  if (state.version === 0) return `${where} has no schema yet; this release needs version ${latest}`
  return `${where} has schema version ${state.version}; this release needs version ${latest}`
}

/** The report of a run that found `state` and applied `applied`. */
export function reportOf (store: string, location: string, state: SchemaState, applied: readonly Numbered[]): MigrationReport {
  return {
    store,
    location,
    from: state.version,
    to: state.version + applied.length,
    applied: applied.map((m) => ({ version: m.version, name: m.name })),
    earlierRelease: state.earlierRelease,
  }
}

/** One line for a log or the admin tool. */
export function describeReport (report: MigrationReport): string {
  const where = `${report.store} (${report.location})`
  if (report.applied.length === 0) return `${where}: schema version ${report.to}, up to date`
  const from = report.earlierRelease ? 'an earlier release without versions' : `version ${report.from}`
  return `${where}: from ${from} to version ${report.to}: ${report.applied.map((m) => `${m.version} ${m.name}`).join(', ')}`
}
