import { createLogger, type Logger } from '@content/platform'

/** A gateway logger at `level` whose lines are kept, parsed, for a test to read. */
export function capturedLog (level = 'info'): { logger: Logger, lines: Record<string, unknown>[], text: () => string } {
  const raw: string[] = []
  const logger = createLogger({ service: 'gateway', level, stream: { write: (line: string) => raw.push(line) } })
  return {
    logger,
    get lines () { return raw.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>) },
    text: () => raw.join(''),
  }
}

/** The access lines (msg "request") among `lines`. */
export const accessLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'request')
