import { loadConfig, type Logger } from '@content/platform'
import type { MigrationReport } from '@content/platform/migrations'
import { posterStoreEnv } from './config.js'
import { migrateMediaStore } from './store/open-store.js'

/**
 * `admin migrate`: the poster service's store settings read from `env` as the service reads them (a
 * ConfigError names what is wrong), and the run that brings its media store to this release's schema.
 */
export function posterMigration (env: NodeJS.ProcessEnv): (log: Logger) => Promise<MigrationReport[]> {
  const config = loadConfig(posterStoreEnv, env)
  return (log) => migrateMediaStore(config, log)
}
