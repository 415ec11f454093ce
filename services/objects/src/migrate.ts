import { loadConfig, type Logger } from '@content/platform'
import type { MigrationReport } from '@content/platform/migrations'
import { objectsStoreEnv } from './config.js'
import { migrateStore } from './store/open-store.js'

/**
 * `admin migrate`: the objects service's store settings read from `env` as the service reads them (a
 * ConfigError names what is wrong), and the run that brings its store to this release's schema.
 */
export function objectsMigration (env: NodeJS.ProcessEnv): (log: Logger) => Promise<MigrationReport[]> {
  const config = loadConfig(objectsStoreEnv, env)
  return (log) => migrateStore(config, log)
}
