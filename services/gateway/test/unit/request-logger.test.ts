import { createLogger, type Logger } from '@content/platform'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { lazyRequestLogger } from '../../src/http/request-logger.js'

function parentAt (level: string) {
  const raw: string[] = []
  const parent = createLogger({ service: 'gateway', level, stream: { write: (line: string) => raw.push(line) } })
  const child = vi.spyOn(parent, 'child')
  return { parent, child, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) }
}

const lazy = (parent: Logger) => lazyRequestLogger.call(undefined, parent as unknown as FastifyBaseLogger, { reqId: 'r-1' }, {}) as unknown as Logger

describe('a request\'s logger, made on first use', () => {
  it('when nothing is logged through it, then no child logger is ever made', () => {
    const { parent, child } = parentAt('info')
    const log = lazy(parent)
    log.debug({ reason: 'X' }, 'below the level')
    expect(log.level).toBe('info')
    expect(child).not.toHaveBeenCalled()
  })

  it('when a line is logged, then it is made once and the lines carry the request id, redacted as any', () => {
    const { parent, child, lines } = parentAt('info')
    const log = lazy(parent)
    log.warn({ cause: '14 UNAVAILABLE', password: 'pw-secret' }, 'backend unavailable')
    log.error({ err: new Error('boom') }, 'request failed')
    expect(child).toHaveBeenCalledTimes(1)
    expect(lines()).toMatchObject([
      { level: 40, reqId: 'r-1', service: 'gateway', cause: '14 UNAVAILABLE', password: '[Redacted]', msg: 'backend unavailable' },
      { level: 50, reqId: 'r-1', err: { message: 'boom' }, msg: 'request failed' },
    ])
  })

  it('when its own level is set, then the made child follows it', () => {
    const { parent, lines } = parentAt('info')
    const log = lazy(parent)
    log.level = 'warn'
    log.info('hidden')
    log.warn('shown')
    expect(lines().map((l) => l.msg)).toEqual(['shown'])
    expect(log.child({ more: 1 }).bindings()).toMatchObject({ reqId: 'r-1', more: 1 })
  })
})
