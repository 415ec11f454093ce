import Database from 'better-sqlite3'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { describe, expect, it } from 'vitest'
import { traceStatements } from '../../src/telemetry/sqlite-spans.js'
import { must } from '../support/must.js'

function traced () {
  const exporter = new InMemorySpanExporter()
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const db = traceStatements(new Database(':memory:'), provider.getTracer('test'))
  return { db, spans: () => exporter.getFinishedSpans() }
}

describe('SQLite statement spans', () => {
  it('each run, get and all is a CLIENT span with the SQL as prepared and never its parameters', () => {
    const { db, spans } = traced()
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, secret TEXT)')
    const insert = db.prepare('INSERT INTO t (secret) VALUES (?)')
    insert.run('hunter2')
    expect(db.prepare('SELECT secret FROM t WHERE id = ?').get(1)).toEqual({ secret: 'hunter2' })
    expect(db.prepare('select id from t').all()).toEqual([{ id: 1 }])

    expect(spans().map((s) => s.name)).toEqual(['CREATE :memory:', 'INSERT :memory:', 'SELECT :memory:', 'SELECT :memory:'])
    const select = must(spans()[2])
    expect(select.kind).toBe(SpanKind.CLIENT)
    expect(select.attributes).toEqual({
      'db.system.name': 'sqlite', 'db.namespace': ':memory:', 'db.operation.name': 'SELECT',
      'db.query.text': 'SELECT secret FROM t WHERE id = ?',
    })
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain('hunter2')
  })

  it('statements switched to raw() or pluck() are still traced, and answer as before', () => {
    const { db, spans } = traced()
    db.exec('CREATE TABLE t (a, b)')
    db.prepare('INSERT INTO t VALUES (1, 2)').run()
    expect(db.prepare('SELECT a, b FROM t').raw().all()).toEqual([[1, 2]])
    expect(db.prepare('SELECT b FROM t').pluck().get()).toBe(2)
    expect(spans()).toHaveLength(4)
  })

  it('a failing statement ends its span with an error status and the exception, and still throws', () => {
    const { db, spans } = traced()
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)')
    const insert = db.prepare('INSERT INTO t (id) VALUES (?)')
    insert.run(1)
    expect(() => insert.run(1)).toThrow(/UNIQUE/)
    const failed = must(spans().at(-1))
    expect(failed.status).toMatchObject({ code: SpanStatusCode.ERROR })
    expect(failed.events.map((e) => e.name)).toContain('exception')
  })

  it('without a tracer (the telemetry preload did not start) the database comes back untouched', () => {
    const db = new Database(':memory:')
    const prepare = db.prepare
    expect(traceStatements(db)).toBe(db)
    expect(db.prepare).toBe(prepare)
  })
})
