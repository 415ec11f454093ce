import { describe, expect, it } from 'vitest'
import { http, removeDir, startSystem } from './support/system.js'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'

/** The console exporter prints one object per span; each names its service and its trace. */
function spansOf (output: string): { service: string, traceId: string }[] {
  return output.split(/\n(?=\{\n\s+resource:)/).flatMap((block) => {
    const service = /'service\.name': '([^']+)'/.exec(block)?.[1]
    const traceId = /\btraceId: '([0-9a-f]{32})'/.exec(block)?.[1]
    return service && traceId ? [{ service, traceId }] : []
  })
}

describe('tracing across the system', () => {
  it('when a client sends W3C trace context, then the gateway and the objects service record spans of that trace', async () => {
    const system = await startSystem({ OTEL_TRACES_EXPORTER: 'console', READ_CACHE: 'false' })
    try {
      const res = await http(system.base, 'GET', '/objects/1', { headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } })
      expect(res.status).toBe(200)
    } finally {
      await system.stop()
      removeDir(system.dataDir)
    }
    const services = new Set(spansOf(system.output()).filter((s) => s.traceId === TRACE_ID).map((s) => s.service))
    expect(services).toContain('content-gateway')
    expect(services).toContain('content-objects')
  })
})
