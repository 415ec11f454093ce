import pg from 'pg'

/**
 * The driver's pool with this store's conventions: 64-bit integers (ids, times in ms, counts) and the
 * numeric of SUM() read as JS numbers (every value the store keeps is below 2^53), statements written
 * with named parameters (`@name`, as the SQLite adapter writes them) and sent as prepared statements.
 */
const INT8_ARRAY = 1016
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value)
    if (oid === INT8_ARRAY) {
      const strings = pg.types.getTypeParser(oid, format) as (value: string) => (string | null)[]
      return (value: string) => strings(value).map((v) => (v === null ? null : Number(v)))
    }
    return pg.types.getTypeParser(oid, format)
  }) as typeof pg.types.getTypeParser,
}

export interface PoolSettings {
  /** a libpq URL */
  url: string
  /** connections at most (PG_POOL_SIZE) */
  max?: number
  /** bound on one statement, ms (PG_STATEMENT_TIMEOUT_MS); 0 = none */
  statementTimeoutMs?: number
  /** how long a call waits for a free connection before it fails, ms */
  connectionTimeoutMs?: number
  applicationName?: string
}

export function createPool (s: PoolSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: s.url,
    max: s.max ?? 10,
    types,
    application_name: s.applicationName ?? 'content-objects',
    connectionTimeoutMillis: s.connectionTimeoutMs ?? 5_000,
    ...(s.statementTimeoutMs ? { statement_timeout: s.statementTimeoutMs } : {}),
  })
  // an idle connection that breaks (the server restarted) is dropped by the pool; without a listener
  // its error would end the process
  pool.on('error', () => {})
  return pool
}

/** A statement with named parameters, as the driver takes it: `$n` and the names in their order. */
interface Compiled { text: string, names: string[], name: string | undefined }

/**
 * The most statements sent as named (server-side prepared) ones: each connection keeps every one it
 * ran, and the lists of decisions §15 make a statement per query shape a client chooses; past this many
 * texts a statement is sent unnamed (parsed and planned each time).
 */
const MAX_PREPARED = 2_000
const compiled = new Map<string, Compiled>()

function compile (sql: string): Compiled {
  let c = compiled.get(sql)
  if (c === undefined) {
    const names: string[] = []
    const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
      let at = names.indexOf(name)
      if (at < 0) at = names.push(name) - 1
      return `$${at + 1}`
    })
    c = { text, names, name: compiled.size < MAX_PREPARED ? `s${compiled.size}` : undefined }
    compiled.set(sql, c)
  }
  return c
}

/** Something that runs statements: the pool, or the client of a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient

function config (sql: string, params: Record<string, unknown>, rowMode?: 'array'): pg.QueryConfig & { rowMode?: 'array' } {
  const c = compile(sql)
  const values = c.names.map((n) => {
    const v = params[n]
    if (v === undefined) throw new Error(`no value for @${n}`)
    return v
  })
  return { text: c.text, values, ...(c.name === undefined ? {} : { name: c.name }), ...(rowMode ? { rowMode } : {}) }
}

/** Named-parameter statements over a pool or a transaction's client. */
export class Db {
  constructor (readonly q: Queryable) {}

  async all<T> (sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    return (await this.q.query(config(sql, params))).rows as T[]
  }

  async one<T> (sql: string, params: Record<string, unknown> = {}): Promise<T | undefined> {
    return (await this.q.query(config(sql, params))).rows[0] as T | undefined
  }

  /** Rows as arrays of the selected columns: cheaper than keyed rows for the records every read loads. */
  async rawAll<T extends unknown[] = unknown[]> (sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    return (await this.q.query(config(sql, params, 'array'))).rows as T[]
  }

  async rawOne (sql: string, params: Record<string, unknown> = {}): Promise<unknown[] | undefined> {
    return (await this.q.query(config(sql, params, 'array'))).rows[0] as unknown[] | undefined
  }

  /** Runs a statement; answers the number of rows it changed. */
  async run (sql: string, params: Record<string, unknown> = {}): Promise<number> {
    return (await this.q.query(config(sql, params))).rowCount ?? 0
  }

  /** Runs statements without parameters, several at once (DDL). */
  async exec (sql: string): Promise<void> {
    await this.q.query(sql)
  }
}

/** SQLSTATEs the store turns into domain conflicts or retries. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  serializationFailure: '40001',
  deadlock: '40P01',
} as const

export const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
