import pg from 'pg'
import type { Logger } from 'pino'
import { present } from '../present.js'
import { failureError, failureKind, type FailureContext } from './failures.js'
import type { PostgresSettings } from './settings.js'

export type Row = pg.QueryResultRow
export type Result<R extends Row = Row> = pg.QueryResult<R>

/** What runs SQL: the pool (any free connection) or one transaction's connection. */
export interface Queryable {
  query<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<Result<R>>
}

export type Isolation = 'read committed' | 'repeatable read' | 'serializable'

export interface TransactionOptions {
  isolation?: Isolation
  /**
   * Runs the work again (up to this many times in all) when PostgreSQL aborts it for a serialization
   * failure or a deadlock: nothing of an aborted transaction was applied, so this is safe for work that
   * does nothing but SQL on `tx`. Default 3; 1 = never again.
   */
  attempts?: number
}

export interface Postgres extends Queryable {
  readonly pool: pg.Pool
  /**
   * BEGIN, `work`, COMMIT on one connection; ROLLBACK when `work` throws (its error is rethrown). Database
   * failures come out as the domain's errors (see failures.ts); others as the driver threw them.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>
  /** One connection for work outside a transaction; released after, destroyed when it failed. */
  withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>
  /**
   * A connection of its own, outside the pool and without the statement timeout, for a session that holds
   * a lock or waits long (migrations, LISTEN). The caller ends it; ending it releases what it held.
   */
  session(): Promise<pg.Client>
  /** Whether the database answers now; an exhausted pool counts as reachable. */
  ping(): Promise<boolean>
  /** Calls `listener` whenever a call finds the database unreachable; answers the unsubscribe. */
  onUnreachable(listener: () => void): () => void
  /** Ends every connection; calls in flight finish first. */
  close(): Promise<void>
}

export interface PostgresOptions {
  settings: PostgresSettings
  /** `application_name` in pg_stat_activity */
  applicationName: string
  log: Logger
}

const SERIALIZATION_FAILURE = '40001'
const DEADLOCK_DETECTED = '40P01'
const INT8 = 20
/** Backoff before a retried transaction: a few ms, random, growing per attempt. */
const RETRY_BASE_MS = 5
/** Past the statement timeout, the client gives up on a server that stopped answering altogether. */
const READ_GRACE_MS = 2_000
/** How long the client waits for a statement the server cancels after `statementTimeoutMs`. */
export const readTimeoutFor = (statementTimeoutMs: number): number => statementTimeoutMs + READ_GRACE_MS

/**
 * bigint columns (ids, ms timestamps) come back as numbers, not strings: every value these services keep
 * in one is below 2^53.
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) => oid === INT8 && format !== 'binary'
    ? (text: string) => Number(text)
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/**
 * One pool per process on DATABASE_URL, with the statement timeout set on every connection, a bound on
 * the wait for a connection, and the driver's failures turned into the domain's (503, 504).
 */
export function openPostgres (options: PostgresOptions): Postgres {
  const { settings, log } = options
  const connection: pg.ClientConfig = {
    connectionString: present(settings.DATABASE_URL, 'DATABASE_URL'),
    connectionTimeoutMillis: settings.PG_ACQUIRE_TIMEOUT_MS,
    application_name: options.applicationName,
    keepAlive: true,
    types: TYPES,
  }
  const pool = new pg.Pool({
    ...connection,
    max: settings.PG_POOL_SIZE,
    statement_timeout: settings.PG_STATEMENT_TIMEOUT_MS,
    query_timeout: readTimeoutFor(settings.PG_STATEMENT_TIMEOUT_MS),
  })
  const context: FailureContext = {
    poolSize: settings.PG_POOL_SIZE, acquireTimeoutMs: settings.PG_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: settings.PG_STATEMENT_TIMEOUT_MS,
  }
  const unreachableListeners = new Set<() => void>()
  // an idle connection the server ended (a restart): the pool drops it; without a listener it would crash the process
  pool.on('error', (err) => { log.warn({ error: err.message }, 'an idle database connection failed') })

  /** The domain's error for `err` when it is the database's failure; `err` itself otherwise. */
  const translate = (err: unknown, committing = false): unknown => {
    const kind = failureKind(err, pool.totalCount >= settings.PG_POOL_SIZE)
    if (kind === 'unreachable') for (const listener of unreachableListeners) listener()
    return failureError(kind, { ...context, committing }) ?? err
  }

  const checkout = async (): Promise<pg.PoolClient> => {
    const client = await pool.connect().catch((err: unknown) => { throw translate(err) })
    // a connection cut while checked out is reported on the client: without a listener it would crash the process
    client.on('error', ignore)
    return client
  }
  const release = (client: pg.PoolClient, err?: unknown) => {
    client.off('error', ignore)
    // a connection whose failure was not SQL's own may be broken: the pool replaces it
    client.release(err !== undefined && failureKind(err) !== 'other' ? (err as Error) : undefined)
  }

  async function once<T> (work: (tx: Queryable) => Promise<T>, isolation: Isolation | undefined): Promise<T> {
    const client = await checkout()
    let committing = false
    try {
      await client.query(isolation ? `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}` : 'BEGIN')
      const result = await work(client)
      committing = true
      await client.query('COMMIT')
      release(client)
      return result
    } catch (err) {
      if (!committing) await client.query('ROLLBACK').catch(ignore)
      release(client, err)
      throw translate(err, committing)
    }
  }

  return {
    pool,
    async query<R extends Row> (text: string, values?: readonly unknown[]) {
      try {
        return await pool.query<R>(text, values as unknown[] | undefined)
      } catch (err) {
        throw translate(err)
      }
    },
    async transaction (work, options = {}) {
      const attempts = options.attempts ?? 3
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(work, options.isolation)
        } catch (err) {
          const code = (err as { code?: unknown }).code
          if (attempt >= attempts || (code !== SERIALIZATION_FAILURE && code !== DEADLOCK_DETECTED)) throw err
          await new Promise((resolve) => setTimeout(resolve, RETRY_BASE_MS * attempt * (1 + Math.random())))
        }
      }
    },
    async withClient (work) {
      const client = await checkout()
      try {
        const result = await work(client)
        release(client)
        return result
      } catch (err) {
        release(client, err)
        throw translate(err)
      }
    },
    async session () {
      const client = new pg.Client(connection)
      client.on('error', ignore)
      try {
        await client.connect()
      } catch (err) {
        throw translate(err)
      }
      return client
    },
    async ping () {
      try {
        await pool.query('SELECT 1')
        return true
      } catch (err) {
        return failureKind(err, pool.totalCount >= settings.PG_POOL_SIZE) === 'exhausted'
      }
    },
    onUnreachable (listener) {
      unreachableListeners.add(listener)
      return () => { unreachableListeners.delete(listener) }
    },
    close: () => pool.end(),
  }
}

function ignore (): void {}
