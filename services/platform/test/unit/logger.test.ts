import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loggerOptions, redactUrl } from '../../src/logger.js'

function capture () {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
  return { log: pino(loggerOptions({ service: 'test' }), stream), lines }
}

describe('logger redaction', () => {
  it('when secrets are logged at any of the known paths, then their values never appear', () => {
    const { log, lines } = capture()
    log.info({ password: 'pw-1', body: { password: 'pw-2', refresh_token: 'rt-3', access_token: 'at-4' }, req: { headers: { authorization: 'Bearer at-5' } } }, 'x')
    const out = lines.join('')
    for (const secret of ['pw-1', 'pw-2', 'rt-3', 'at-4', 'at-5']) expect(out).not.toContain(secret)
    expect(out).toContain('[Redacted]')
    expect(JSON.parse(out).service).toBe('test')
  })

  it('when a request is logged, then the access_token query value is redacted from its URL', () => {
    const { log, lines } = capture()
    log.info({ req: { method: 'GET', url: '/objects/1?page=2&access_token=abc.def.ghi', id: 'r1' } }, 'request')
    expect(lines.join('')).not.toContain('abc.def.ghi')
    expect(JSON.parse(lines[0]!).req.url).toBe('/objects/1?page=2&access_token=[Redacted]')
  })

  it.each([
    ['/x?access_token=t', '/x?access_token=[Redacted]'],
    ['/x?a=1&ACCESS_TOKEN=t&b=2', '/x?a=1&ACCESS_TOKEN=[Redacted]&b=2'],
    ['/x?my_access_token=t', '/x?my_access_token=t'],
    ['/x', '/x'],
    ['/auth/r3fresh-t0ken_x', '/auth/[Redacted]'],
    ['/api/v1/auth/r3fresh?access_token=t', '/api/v1/auth/[Redacted]?access_token=[Redacted]'],
    ['/auth', '/auth'],
    ['/auth?x=1', '/auth?x=1'],
    ['/objects/1?q=/auth/x', '/objects/1?q=/auth/x'],
  ])('redactUrl(%s) = %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected)
  })
})
