import { loadConfig, type Logger } from '@content/platform'
import type { MigrationReport } from '@content/platform/migrations'
import { authStoreEnv } from './config.js'
import { migrateStores } from './stores.js'

/**
 * `admin migrate`: the auth service's store settings read from `env` as the service reads them (a
 * ConfigError names what is wrong), and the run that brings its stores to this release's schema.
 */
export function authMigration (env: NodeJS.ProcessEnv): (log: Logger) => Promise<MigrationReport[]> {
  const config = loadConfig(authStoreEnv, env)
  return (log) => migrateStores(config, log)
}
