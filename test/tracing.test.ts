import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

// Every service exports its spans over OTLP/HTTP JSON to a collector this test runs, so a trace can be
// followed span by span, parent by parent, from the HTTP request to the SQLite statement.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const LOGIN_TRACE_ID = '5cf92f3577b34da6a3ce929d0e0e4737'
const CLIENT_SPAN = '00f067aa0ba902b7'
const traceparent = (traceId: string) => `00-${traceId}-${CLIENT_SPAN}-01`

interface Span {
  service: string
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** 2 server, 3 client */
  kind: number
  attributes: Record<string, unknown>
}

interface OtlpValue { stringValue?: string, intValue?: string, boolValue?: boolean }
interface OtlpAttribute { key: string, value: OtlpValue }
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] }
    scopeSpans?: { spans?: (Omit<Span, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[] }[]
  }[]
}

const plainValue = (v: OtlpValue) => v.stringValue ?? v.intValue ?? v.boolValue
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]))

const spans: Span[] = []
let collector: Server
let system: RunningSystem

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => { body += String(chunk) })
    req.on('end', () => {
      const batch = JSON.parse(body) as OtlpExport
      for (const resource of batch.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)['service.name'])
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ ...span, service, attributes: attributesOf(span.attributes) })
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r))
  const address = collector.address()
  const port = typeof address === 'object' && address ? address.port : 0
  system = await startSystem({
    READ_CACHE: 'false',
    LOG_LEVEL: 'debug',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  })
  const read = await http(system.base, 'GET', '/objects/1', { headers: { traceparent: traceparent(TRACE_ID) } })
  expect(read.status).toBe(200)
  const login = await http(system.base, 'POST', '/auth', { body: ADMIN, headers: { traceparent: traceparent(LOGIN_TRACE_ID) } })
  expect(login.status).toBe(200)
  // stopping flushes every service's last batch
  await system.stop()
})
afterAll(async () => {
  await system?.stop()
  if (system) removeDir(system.dataDir)
  await new Promise((r) => collector?.close(r))
})

/** The span and its ancestors, up to the one whose parent is outside the collected spans (the client). */
function chainOf (span: Span, trace: Span[]): Span[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]))
  const chain = [span]
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent)
  return chain
}

const ofTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId)
const describeChain = (chain: Span[]) => chain.map((s) => `${s.service}:${s.kind}:${s.name}`)

describe('one trace through every hop', () => {
  it('a read: gateway HTTP server (named by route) → gRPC client → objects gRPC server → SQLite statement', () => {
    const trace = ofTrace(TRACE_ID)
    const statement = trace.find((s) => s.service === 'content-objects' && s.attributes['db.system.name'] === 'sqlite')
    expect(statement, JSON.stringify(trace.map((s) => `${s.service}:${s.name}`))).toBeDefined()
    expect(must(statement).kind).toBe(3)
    expect(must(statement).attributes['db.namespace']).toBe('objects.sqlite')
    expect(String(must(statement).attributes['db.query.text'])).toMatch(/^\s*(SELECT|WITH)\b/i)

    const chain = chainOf(must(statement), trace)
    const names = describeChain(chain)
    // nearest first: the statement, the backend's server span, the gateway's client span, its HTTP server span
    const objectsServer = chain.findIndex((s) => s.service === 'content-objects' && s.kind === 2 && s.name === 'grpc.content.v1.ObjectService/GetObject')
    const gatewayClient = chain.findIndex((s) => s.service === 'content-gateway' && s.kind === 3 && s.name === 'grpc.content.v1.ObjectService/GetObject')
    const gatewayServer = chain.findIndex((s) => s.service === 'content-gateway' && s.kind === 2)
    expect(objectsServer, String(names)).toBeGreaterThan(0)
    expect(gatewayClient, String(names)).toBeGreaterThan(objectsServer)
    expect(gatewayServer, String(names)).toBeGreaterThan(gatewayClient)
    expect(must(chain[gatewayServer]).name).toBe('GET /objects/{object_id}')
    expect(must(chain[gatewayServer]).attributes['http.route']).toBe('/objects/{object_id}')
    // the chain ends at the client's span, which sent the traceparent
    expect(must(chain.at(-1)).parentSpanId).toBe(CLIENT_SPAN)
  })

  it('a login reaches the auth service\'s SQLite statements in the same trace', () => {
    const trace = ofTrace(LOGIN_TRACE_ID)
    const statement = trace.find((s) => s.service === 'content-auth' && s.attributes['db.namespace'] === 'auth.sqlite')
    expect(statement, JSON.stringify(trace.map((s) => `${s.service}:${s.name}`))).toBeDefined()
    const chain = chainOf(must(statement), trace)
    expect(chain.some((s) => s.service === 'content-gateway' && s.name === 'POST /auth'), String(describeChain(chain))).toBe(true)
    expect(must(chain.at(-1)).parentSpanId).toBe(CLIENT_SPAN)
  })

  it('log lines written inside a span carry its trace id and span id', () => {
    const lines = system.output().split('\n').filter((line) => line.startsWith('{') && line.includes(TRACE_ID))
    const rpc = lines.map((line) => JSON.parse(line)).find((entry) => entry.service === 'objects' && entry.msg === 'rpc')
    expect(rpc, lines.join('\n')).toMatchObject({ trace_id: TRACE_ID, rpc: 'content.v1.ObjectService/GetObject' })
    expect(ofTrace(TRACE_ID).map((s) => s.spanId)).toContain(rpc.span_id)
  })
})
