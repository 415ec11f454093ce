import { trace } from '@opentelemetry/api'

/**
 * Names the active span (the HTTP server span when tracing is on) after the route template, as the
 * OpenTelemetry HTTP conventions ask: `GET /objects/{object_id}` rather than the bare method. A no-op
 * when no span is active.
 */
export function nameActiveSpan (method: string, route: string): void {
  const span = trace.getActiveSpan()
  if (span === undefined) return
  span.updateName(`${method} ${route}`)
  span.setAttribute('http.route', route)
}
