import type { Logger } from '@content/platform'
import type { FastifyBaseLogger } from 'fastify'

type Bindings = Record<string, unknown>
type LogArgs = Parameters<Logger['info']>

/**
 * A request's logger, made when first written to: fastify gives every request a child logger bound to
 * its id, and making one (its bindings through the redaction paths) cost about what the request's whole
 * access line does, while most requests never log through it (their access line has its own writer).
 */
class LazyChild {
  private made: Logger | undefined

  constructor (private readonly parent: Logger, private readonly bindings: Bindings, private readonly options: object) {}

  private get log (): Logger {
    this.made ??= this.parent.child(this.bindings, this.options)
    return this.made
  }

  get level (): string { return this.made?.level ?? this.parent.level }
  set level (level: string) { this.log.level = level }
  isLevelEnabled (level: string): boolean { return this.parent.isLevelEnabled(level) && (this.made?.isLevelEnabled(level) ?? true) }
  child (bindings: Bindings, options?: object): Logger { return this.log.child(bindings, options) }
  fatal (...args: LogArgs): void { if (this.isLevelEnabled('fatal')) this.log.fatal(...args) }
  error (...args: LogArgs): void { if (this.isLevelEnabled('error')) this.log.error(...args) }
  warn (...args: LogArgs): void { if (this.isLevelEnabled('warn')) this.log.warn(...args) }
  info (...args: LogArgs): void { if (this.isLevelEnabled('info')) this.log.info(...args) }
  debug (...args: LogArgs): void { if (this.isLevelEnabled('debug')) this.log.debug(...args) }
  trace (...args: LogArgs): void { if (this.isLevelEnabled('trace')) this.log.trace(...args) }
  silent (): void {}
}

/** fastify's childLoggerFactory: each request's logger, made on first use. */
export function lazyRequestLogger (this: unknown, parent: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  return new LazyChild(parent as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger
}
