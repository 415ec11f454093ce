/**
 * OpenTelemetry preload: `node --import @content/platform/telemetry dist/main.js`.
 * Off unless enabled: it starts only when `OTEL_TRACES_EXPORTER` or an OTLP endpoint is set and
 * `OTEL_SDK_DISABLED` is not `true`. The SDK reads every other setting (service name, exporter,
 * endpoint, sampler) from the standard `OTEL_*` variables; W3C trace context is its default propagator,
 * so a trace flows gateway → backends through the HTTP and gRPC instrumentations, down to the PostgreSQL,
 * MongoDB, Redis and SQLite calls each request makes.
 */
import { register } from 'node:module'
import { TELEMETRY_SHUTDOWN } from './shutdown-hook.js'

export function telemetryEnabled (env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false
  return Boolean(env.OTEL_TRACES_EXPORTER || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

if (telemetryEnabled()) {
  // ESM modules are only instrumented through the loader hook, and it must be registered before
  // the instrumented modules load.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url)
  // metrics are prom-client's, on METRICS_PORT; logs stay pino's lines on stdout
  process.env.OTEL_METRICS_EXPORTER ??= 'none'
  process.env.OTEL_LOGS_EXPORTER ??= 'none'
  const { NodeSDK } = await import('@opentelemetry/sdk-node')
  const { GrpcInstrumentation } = await import('@opentelemetry/instrumentation-grpc')
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http')
  const { MongoDBInstrumentation } = await import('@opentelemetry/instrumentation-mongodb')
  const { IORedisInstrumentation } = await import('@opentelemetry/instrumentation-ioredis')
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg')
  const { PinoInstrumentation } = await import('@opentelemetry/instrumentation-pino')
  // SQLite statements get their spans from traceStatements (no instrumentation exists for better-sqlite3);
  // pino's gives every log line written inside a span its trace_id and span_id, and sends no log records
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation(), new GrpcInstrumentation(), new MongoDBInstrumentation(), new IORedisInstrumentation(),
      // one span per statement, the pool's connects among them; the SQL as sent, never its parameters
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  })
  sdk.start()
  // onShutdown() flushes through this before exiting; process.exit skips 'beforeExit'.
  ;(globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN] = () => sdk.shutdown()
}
