import { createTestDatabase, onServer, type TestDatabase } from '@content/platform/testing'
import { startServices, type Services, type ServicesOptions } from './services.js'
import { freePort, removeDir } from './system.js'

/** The replicated shape on PostgreSQL: its services, its database, and a stop that removes both. */
export interface PostgresReplicas extends Services {
  database: TestDatabase
  /** each gateway's /metrics address (gateway i at gatewayMetrics[i]) */
  gatewayMetrics: string[]
  /** each objects process's /metrics address */
  objectsMetrics: string[]
  /** rows of a query on the database, as a third party reads it (the objects store's tables are in schema `objects`) */
  rows: <R extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>
  /** stops every process, then drops the database and the data directory */
  close: () => Promise<void>
}

/**
 * Two objects processes and two gateways (each gateway spreading its calls over both objects processes,
 * round robin) with auth and poster, every store on one PostgreSQL database of the test's own
 * (createTestDatabase). `env` is given to every process; `options` as startServices takes them.
 */
export async function startPostgresReplicas (label: string, env: Record<string, string> = {}, options: ServicesOptions = {}): Promise<PostgresReplicas> {
  const database = await createTestDatabase(label)
  const metricsPorts = [await freePort(), await freePort()]
  const objectsMetricsPorts = [await freePort(), await freePort()]
  const metricsAt = (port: number | undefined) => ({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' })
  let services: Services
  try {
    services = await startServices({ STORE: 'postgres', DATABASE_URL: database.url, ...env }, {
      objectsReplicas: 2, gateways: 2, gatewayEnv: (i) => metricsAt(metricsPorts[i]), objectsEnv: (i) => metricsAt(objectsMetricsPorts[i]), ...options,
    })
  } catch (err) {
    await database.drop()
    throw err
  }
  return {
    ...services,
    database,
    gatewayMetrics: metricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`),
    objectsMetrics: objectsMetricsPorts.map((port) => `http://127.0.0.1:${port}/metrics`),
    rows: async <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
      (await onServer((client) => client.query<R>(sql, params), database.url)).rows,
    async close () {
      await services.stop()
      removeDir(services.dataDir)
      await database.drop()
    },
  }
}
