import type { Logger } from 'pino'
import { flushTelemetry } from './telemetry/shutdown-hook.js'

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits. A second signal, or `close` outliving
 * `timeoutMs`, exits at once: an orchestrator's patience is finite.
 */
export function onShutdown (log: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let closing = false
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      log.warn({ signal }, 'second signal; exiting now')
      process.exit(1)
    }
    closing = true
    log.info({ signal }, 'shutting down')
    const timer = setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown timed out')
      process.exit(1)
    }, timeoutMs + 1_000)
    timer.unref()
    close().then(flushTelemetry).then(
      () => { log.info('stopped'); process.exit(0) },
      (err: unknown) => { log.error({ err }, 'shutdown failed'); process.exit(1) },
    )
  }
  process.once('SIGTERM', handler)
  process.once('SIGINT', handler)
}
