import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { collectProcessMetrics, metricsRegistry } from './registry.js'

export interface MetricsServer {
  readonly port: number
  close(): Promise<void>
}

function answer (req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0]
  if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n')
    return
  }
  metricsRegistry.metrics().then((text) => {
    res.writeHead(200, { 'content-type': metricsRegistry.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
    res.end(req.method === 'HEAD' ? undefined : text)
  }, () => {
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n')
  })
}

/**
 * Serves `GET /metrics` (Prometheus text exposition) on its own host and port, apart from the service's
 * own port so it is never exposed through the public ingress; anything else is 404. Also starts the
 * process metrics. Rejects when the port cannot be bound.
 */
export function createMetricsServer (host: string, port: number): Promise<MetricsServer> {
  collectProcessMetrics()
  const server = createServer(answer)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((done) => {
          server.close(() => done())
          // a scraper keeps its connection open between scrapes: don't wait for it
          server.closeAllConnections()
        }),
      })
    })
  })
}

/**
 * The scrape endpoint as METRICS_PORT and METRICS_HOST say: none when the port is unset. A port that
 * cannot be bound is fatal, like the service's own.
 */
export async function startMetrics (settings: { METRICS_PORT?: number | undefined, METRICS_HOST: string }, log: Logger): Promise<{ close(): Promise<void> }> {
  if (settings.METRICS_PORT === undefined) return { close: async () => {} }
  try {
    const server = await createMetricsServer(settings.METRICS_HOST, settings.METRICS_PORT)
    log.info({ host: settings.METRICS_HOST, port: server.port }, 'metrics at /metrics')
    return server
  } catch (err) {
    log.fatal({ err }, 'cannot serve metrics')
    process.exit(1)
  }
}
