import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Link, type Span } from '@opentelemetry/api'

/**
 * Spans of coalesced calls. A batch carries many requests' reads, each of its own trace: the batch gets
 * a span of its own linked to every member's, and each member's work on the server a span in its own
 * request's trace linked to the batch's. All of it is a no-op when tracing is off (no SDK registered).
 */
const tracer = trace.getTracer('@content/platform/batch')

/** The W3C traceparent of the active context (a gateway request's span); '' when nothing is traced. */
export function activeTraceparent (): string {
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent ?? ''
}

const linksOf = (traceparents: readonly string[]): Link[] => {
  const links: Link[] = []
  for (const traceparent of traceparents) {
    if (traceparent === '') continue
    const span = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }))
    if (span) links.push({ context: span })
  }
  return links
}

/**
 * Runs `send` (the batch's call) in a new root span linked to its members' spans, ended when the call
 * settles, so the call's own span (gRPC instrumentation) is the batch's, not its first member's.
 */
export function inBatchSpan<T> (name: string, traceparents: readonly string[], send: () => Promise<T>): Promise<T> {
  const links = linksOf(traceparents)
  if (links.length === 0) return context.with(ROOT_CONTEXT, send)
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, links, attributes: { 'batch.size': traceparents.length } }, ROOT_CONTEXT)
  const done = context.with(trace.setSpan(ROOT_CONTEXT, span), send)
  done.then(() => span.end(), () => { span.setStatus({ code: SpanStatusCode.ERROR }); span.end() })
  return done
}

/** A member's span on the server: a child of its request's trace, linked to the batch call's active span. */
export function memberSpan (name: string, traceparent: string): Span | undefined {
  if (traceparent === '') return undefined
  const batch = trace.getActiveSpan()
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent })
  return tracer.startSpan(name, { kind: SpanKind.SERVER, links: batch ? [{ context: batch.spanContext() }] : [] }, parent)
}

/** Ends a member's span with its gRPC status (0 = OK). */
export function endMemberSpan (span: Span | undefined, code: number): void {
  if (span === undefined) return
  span.setAttribute('rpc.grpc.status_code', code)
  if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end()
}
