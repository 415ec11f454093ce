import type { Logger } from 'pino'
import { flushTelemetry } from './telemetry/shutdown-hook.js'

/**
 * Runs `close` once on SIGTERM or SIGINT, then exits. The same signal again (a second Ctrl-C), or
 * `close` outliving `timeoutMs`, exits at once. A different signal while closing is absorbed: Ctrl-C in
 * a terminal reaches every process of the group as SIGINT and `npm start` then sends SIGTERM too.
 */
export function onShutdown (log: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let closingOn: NodeJS.Signals | undefined
  const handler = (signal: NodeJS.Signals) => {
    if (closingOn === signal) {
      log.warn({ signal }, 'second signal; exiting now')
      process.exit(1)
    }
    if (closingOn) return
    closingOn = signal
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
  process.on('SIGTERM', handler)
  process.on('SIGINT', handler)
}
