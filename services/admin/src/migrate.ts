import { ConfigError, createLogger, type Logger } from '@content/platform'
import { describeReport, type MigrationReport } from '@content/platform/migrations'
import { authMigration } from '@content/auth/migrate'
import { objectsMigration } from '@content/objects/migrate'
import { posterMigration } from '@content/poster/migrate'
import type { Printed } from './printed.js'

type Run = (log: Logger) => Promise<MigrationReport[]>

/** Every service's store, in the order `npm start` starts them. */
const SERVICES: [string, (env: NodeJS.ProcessEnv) => Run][] = [['auth', authMigration], ['objects', objectsMigration], ['poster', posterMigration]]

/**
 * `migrate`: every service's store, named by the same settings the services read (STORE, DATA_DIR,
 * DATABASE_URL, MONGODB_URL, MEDIA_STORE …), brought to this release's schema, one after the other, each
 * under its store's lock. Every service's settings are checked before any store is touched. Needs no
 * running service: it is what a pre-upgrade job runs.
 */
export async function migrateAll (env: NodeJS.ProcessEnv): Promise<Printed> {
  const problems: string[] = []
  const runs: [string, Run][] = []
  for (const [service, prepare] of SERVICES) {
    try {
      runs.push([service, prepare(env)])
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      problems.push(...err.problems.map((p) => `${service}: ${p}`))
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  // progress (each migration as it starts) on stderr; the answer on stdout
  const log = createLogger({ service: 'admin', level: env.LOG_LEVEL ?? 'info', fd: 2 })
  const reports: MigrationReport[] = []
  for (const [service, run] of runs) {
    try {
      reports.push(...await run(log))
    } catch (err) {
      // a store refused or unreachable, said with the service it belongs to (no service is called here)
      throw new Error(`${service}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
    }
  }
  return { text: reports.map(describeReport).join('\n'), json: reports }
}
