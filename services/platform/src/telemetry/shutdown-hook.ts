/** Where the telemetry preload leaves its flush function for the shutdown path. */
export const TELEMETRY_SHUTDOWN = Symbol.for('content.telemetry.shutdown')

/** Whether the preload started the SDK: spans recorded now go somewhere. */
export const telemetryStarted = (): boolean => typeof (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN] === 'function'

/** Flushes buffered spans when the preload started the SDK; a no-op otherwise. */
export async function flushTelemetry (): Promise<void> {
  const shutdown = (globalThis as Record<symbol, unknown>)[TELEMETRY_SHUTDOWN]
  if (typeof shutdown === 'function') await (shutdown as () => Promise<void>)().catch(() => undefined)
}
