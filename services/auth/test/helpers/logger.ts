import { Writable } from 'node:stream'
import { loggerOptions, type Logger } from '@content/platform'
import { pino } from 'pino'

/** The service's logger configuration, writing into memory so tests can read every line. */
export function captureLogger (level = 'trace'): { log: Logger, text: () => string, lines: () => Record<string, unknown>[] } {
  const chunks: string[] = []
  const sink = new Writable({ write (chunk, _enc, done) { chunks.push(String(chunk)); done() } })
  const log = pino(loggerOptions({ service: 'auth', level }), sink)
  const text = () => chunks.join('')
  return { log, text, lines: () => text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}
