import { basename } from 'node:path'
import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api'
import { telemetryStarted } from './shutdown-hook.js'

/** The part of a better-sqlite3 statement that runs SQL (the driver is synchronous). */
interface Statement {
  run(...params: unknown[]): unknown
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown
}

/** The part of a better-sqlite3 database that compiles SQL. */
interface Database {
  readonly name: string
  prepare(sql: string): Statement
  exec(sql: string): unknown
}

const RUNS = ['run', 'get', 'all'] as const

/**
 * Every statement run on `db` becomes a CLIENT span (`SELECT objects.sqlite`, with the SQL as prepared and
 * never its parameters), a child of whatever span is active: with the gRPC instrumentation, the call
 * being answered. No official instrumentation exists for better-sqlite3. When the telemetry preload did
 * not start (the default), `db` comes back untouched: reads pay nothing.
 */
export function traceStatements<D extends Database> (db: D, tracer: Tracer | undefined = telemetryStarted() ? trace.getTracer('@content/platform/sqlite') : undefined): D {
  if (tracer === undefined) return db
  const namespace = basename(db.name)
  const inSpan = <T>(sql: string, run: () => T): T => {
    const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL'
    return tracer.startActiveSpan(`${operation} ${namespace}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'sqlite', 'db.namespace': namespace, 'db.operation.name': operation, 'db.query.text': sql },
    }, (span) => {
      try {
        return run()
      } catch (err) {
        span.recordException(err as Error)
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message })
        throw err
      } finally {
        span.end()
      }
    })
  }
  const prepare = db.prepare.bind(db)
  const exec = db.exec.bind(db)
  db.prepare = (sql: string) => {
    const statement = prepare(sql)
    // raw(), pluck() and the like return the statement itself, so patching its methods covers them
    for (const method of RUNS) {
      const original = statement[method].bind(statement)
      statement[method] = (...params: unknown[]) => inSpan(sql, () => original(...params))
    }
    return statement
  }
  db.exec = (sql: string) => inSpan(sql, () => exec(sql))
  return db
}
