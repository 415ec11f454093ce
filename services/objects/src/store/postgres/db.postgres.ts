import { DomainError } from '@content/platform'
import { readTimeoutFor, type Postgres } from '@content/platform/postgres'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'

/**
 * Statements as this store runs them on the process's pool (@content/platform/postgres): written with
 * named parameters (`@name`, as the SQLite adapter writes them), sent as prepared statements, and read
 * with 64-bit integers (ids, times in ms, counts, arrays of ids) and the numeric of SUM() as JS numbers
 * (every value the store keeps is below 2^53).
 */
const INT8_ARRAY = 1016
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value)
    if (oid === INT8_ARRAY) {
      const strings = pg.types.getTypeParser(oid as Parameters<typeof pg.types.getTypeParser>[0], format) as (value: string) => (string | null)[]
      return (value: string) => strings(value).map((v) => (v === null ? null : Number(v)))
    }
    return pg.types.getTypeParser(oid, format)
  }) as typeof pg.types.getTypeParser,
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
type Runs = Pick<pg.Pool, 'query'> | pg.PoolClient

function config (sql: string, params: Record<string, unknown>, rowMode: 'array' | undefined, how: DbOptions): pg.QueryConfig & { rowMode?: 'array' } {
  const c = compile(sql)
  const name = how.perRun === true ? undefined : c.name
  const values = c.names.map((n) => {
    const v = params[n]
    if (v === undefined) throw new Error(`no value for @${n}`)
    return v
  })
  return {
    text: c.text, values, types, ...(name === undefined ? {} : { name }), ...(rowMode ? { rowMode } : {}),
    ...(how.readTimeoutMs === undefined ? {} : { query_timeout: how.readTimeoutMs }),
  }
}

/**
 * The bound of a bulk statement: a fixtures file's COPY of 100,000 objects or the numbering of its events
 * takes seconds, past the statement timeout of a request's statements (PG_STATEMENT_TIMEOUT_MS, 5 s by
 * default), which would fail every such import and then every numbering run after it. Still a bound: no
 * one statement outlasts the admin's whole call (services/admin clients.ts, 120 s).
 */
export const BULK_STATEMENT_TIMEOUT_MS = 120_000

/** The statement that lifts the statement timeout of the transaction it runs in to BULK_STATEMENT_TIMEOUT_MS. */
export const LIFT_TIMEOUT = `SET LOCAL statement_timeout = ${BULK_STATEMENT_TIMEOUT_MS}`

/** How long the client waits for a statement under the bulk bound. */
const BULK_READ_TIMEOUT_MS = readTimeoutFor(BULK_STATEMENT_TIMEOUT_MS)

/** Statements without parameters, sent in one round trip, the client waiting for them as for bulk ones (the driver reads `query_timeout`; its types omit it). */
export const bulkQuery = (text: string): pg.QueryConfig => ({ text, query_timeout: BULK_READ_TIMEOUT_MS }) as pg.QueryConfig

/** The Db of a transaction on `client` whose statement timeout LIFT_TIMEOUT lifted: the client waits as long. */
export const bulkStatements = (client: pg.PoolClient): Db => new Db(client, { readTimeoutMs: BULK_READ_TIMEOUT_MS })

/** The Db of the transaction open on `client`, its statement timeout lifted for the rest of it. */
export async function bulkDb (client: pg.PoolClient): Promise<Db> {
  await client.query(LIFT_TIMEOUT)
  return bulkStatements(client)
}

interface DbOptions {
  /** how long the client waits for each statement, when not the pool's (bulkDb) */
  readTimeoutMs?: number
  /** statements sent unnamed (Db.perRun) */
  perRun?: boolean
}

/**
 * Named-parameter statements over the pool (reads: a failure of the database answered as the platform
 * answers it, 503 or 504) or a transaction's client (its failures are the transaction's to translate).
 */
export class Db {
  private readonly q: { query: (c: pg.QueryConfig) => Promise<pg.QueryResult> }
  constructor (private readonly runs: Runs, private readonly how: DbOptions = {}) {
    this.q = { query: (c) => runs.query(c).catch((err: unknown) => { throw refused(err) }) }
  }

  /**
   * The same statements sent unnamed, so planned for the values of each run: the lists, whose scope holds
   * anything from one object to every one. A named statement is planned generically after five runs, for
   * no value in particular: a list of the publication's objects (all of them) was then walked as if it
   * held an average node's 77, and a page of a day's documents took 0.4 s instead of 8 ms at 200,000
   * objects. Planning every statement so (plan_cache_mode) cost the reads by id a third of their speed.
   */
  get perRun (): Db {
    return new Db(this.runs, { ...this.how, perRun: true })
  }

  async all<T> (sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    return (await this.q.query(config(sql, params, undefined, this.how))).rows as T[]
  }

  async one<T> (sql: string, params: Record<string, unknown> = {}): Promise<T | undefined> {
    return (await this.q.query(config(sql, params, undefined, this.how))).rows[0] as T | undefined
  }

  /** Rows as arrays of the selected columns: cheaper than keyed rows for the records every read loads. */
  async rawAll<T extends unknown[] = unknown[]> (sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    return (await this.q.query(config(sql, params, 'array', this.how))).rows as T[]
  }

  async rawOne (sql: string, params: Record<string, unknown> = {}): Promise<unknown[] | undefined> {
    return (await this.q.query(config(sql, params, 'array', this.how))).rows[0] as unknown[] | undefined
  }

  /** Runs a statement; answers the number of rows it changed. */
  async run (sql: string, params: Record<string, unknown> = {}): Promise<number> {
    return (await this.q.query(config(sql, params, undefined, this.how))).rowCount ?? 0
  }

  /**
   * Loads rows into `table` with COPY (pg-copy-streams), streamed in chunks: the bulk path of a fixtures
   * import. Only on a transaction's connection (a pool hands each statement to any connection).
   */
  async copy (table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<void> {
    if (rows.length === 0) return
    if (!('release' in this.runs)) throw new Error('COPY needs a connection of its own')
    const stream = copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)
    // the driver reads a submittable's own read timeout, as it reads a query config's
    if (this.how.readTimeoutMs !== undefined) Object.assign(stream, { query_timeout: this.how.readTimeoutMs })
    const sink = this.runs.query(stream)
    await pipeline(Readable.from(copyLines(rows)), sink)
  }

}

/**
 * Reads on the process's pool, each on a connection lent for it: a failure of the database itself is
 * answered as the platform answers it (503 while it cannot be reached or the pool stays busy, 504 past
 * the statement timeout), and tells the service's readiness.
 */
export function poolDb (postgres: Postgres): Db {
  return new Db({ query: (c: pg.QueryConfig) => postgres.withClient((client) => client.query(c)) } as Runs)
}

/**
 * A text PostgreSQL cannot hold (U+0000, which the API refuses in write bodies, parameters and object
 * references before any store: json-body.ts, the gateway's query check, objectRef) could still come in
 * a call that passed no such check, and so could a name too long for its index (the write schemas bound
 * every indexed one): refused as the client's input, never a 500.
 */
function refused (err: unknown): unknown {
  const state = sqlState(err)
  if (state === '22021' || state === '22P05') {
    return new DomainError('VALIDATION_FAILED', 'a text holds a character this store cannot keep (U+0000)', { text: 'must not contain U+0000' })
  }
  // program_limit_exceeded: an index row past its size
  if (state === '54000') return new DomainError('VALIDATION_FAILED', 'a name is too long for this store to index', { text: 'too long' })
  return err
}

/** SQLSTATEs the store turns into domain conflicts or retries. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  deadlock: '40P01',
} as const

export const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** COPY's text format: a value per column, tab-separated, \N for NULL, backslash escapes; lines batched. */
function * copyLines (rows: readonly (readonly unknown[])[]): Generator<string> {
  const BATCH = 500
  for (let at = 0; at < rows.length; at += BATCH) {
    let chunk = ''
    for (const row of rows.slice(at, at + BATCH)) chunk += `${row.map(copyValue).join('\t')}\n`
    yield chunk
  }
}

const copyText = (text: string): string => text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'))

function copyValue (value: unknown): string {
  if (value === null || value === undefined) return '\\N'
  if (typeof value === 'boolean') return value ? 't' : 'f'
  if (Array.isArray(value)) return copyText(`{${value.map((v) => `"${String(v).replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`)
  return copyText(String(value))
}
