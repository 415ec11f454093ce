import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { quoteIdent } from '../migrations/postgres.js'

/**
 * The PostgreSQL every build machine and CI runs (trust authentication): tests make their databases
 * there. TEST_POSTGRES_URL names another server (a URL to a database the user may create databases from).
 */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

export interface TestDatabase {
  name: string
  /** the libpq URL of the new database */
  url: string
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>
}

/** Runs `work` on a connection to `serverUrl`'s maintenance database; a server that cannot be reached fails loudly. */
export async function onServer<T> (work: (client: pg.Client) => Promise<T>, serverUrl = TEST_POSTGRES_URL): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 })
  // a server stopped under the test ends the connection: the query in flight fails, nothing crashes
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (err) {
    const { host, port } = new URL(serverUrl)
    throw new Error(`PostgreSQL cannot be reached at ${host || 'its socket'}${port ? `:${port}` : ''} (${(err as Error).message}). ` +
      'The PostgreSQL suites are never skipped: start it (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) ' +
      'or point TEST_POSTGRES_URL at one.')
  }
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * A database of its own for a test: `content_<label>_<time>_<random>`, created on TEST_POSTGRES_URL's
 * server and dropped by `drop()`. Never skipped: an unreachable server fails the test that asked.
 */
export async function createTestDatabase (label = 'test', serverUrl = TEST_POSTGRES_URL): Promise<TestDatabase> {
  const safe = label.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 30)
  const name = `content_${safe}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  await onServer((client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`), serverUrl)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () => onServer(async (client) => { await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`) }, serverUrl),
  }
}
