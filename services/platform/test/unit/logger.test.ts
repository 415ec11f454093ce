import { Writable } from 'node:stream'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createLogger, infoLines, loggerOptions, rebuiltUrl, redactUrl } from '../../src/logger.js'
import { must } from '../support/must.js'

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
    expect(JSON.parse(must(lines[0])).req.url).toBe('/objects/1?page=2&access_token=[Redacted]')
  })

  it.each([
    ['/x?access_token=t', '/x?access_token=[Redacted]'],
    ['/x?a=1&ACCESS_TOKEN=t&b=2', '/x?a=1&ACCESS_TOKEN=[Redacted]&b=2'],
    ['/x?my_access_token=t', '/x?my_access_token=[Redacted]'],
    ['/x', '/x'],
    ['/auth/r3fresh-t0ken_x', '/auth/[Redacted]'],
    ['/api/v1/auth/r3fresh?access_token=t', '/api/v1/auth/[Redacted]?access_token=[Redacted]'],
    ['/auth', '/auth'],
    ['/auth?x=1', '/auth?x=1'],
    ['/objects/1?q=/auth/x', '/objects/1?q=%2Fauth%2Fx'],
    ['/objects/%C3%A9t%C3%A9?page=2', '/objects/%C3%A9t%C3%A9?page=2'],
  ])('redactUrl(%s) = %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected)
  })

  it.each([
    '/objects/1?access%5Ftoken=SECRET', '/objects/1?%61ccess_token=SECRET', '/objects/1?access_token=SECRET&access_token=SECRET',
    '/objects/1?a=1&Access_Token=SECRET#frag', '/objects/1?access_token=SEC%52ET', '/objects/1?x=1&refresh%5Ftoken=SECRET',
    '/auth/SECRET', '/auth//SECRET', '/%61uth/SECRET', '//auth//SECRET', '/auth%2FSECRET', '/AUTH/SECRET', '/api/v1/auth/SECRET/more',
    '/auth/%53ECRET', '/auth/SECRET?x=1', '/auth%2f%53ECRET', '/auth/%ZZSECRET',
  ])('no spelling of a token survives: %s', (url) => {
    expect(redactUrl(url)).not.toMatch(/SECRET|%53ECRET|SEC%52ET/i)
  })

  it.each([
    '/objects/1', '/objects/big/children?page_size=20', '/objects/big/children?page_size=20&page=3', '/a/b.c/d~e/f_g-h',
    '/objects/x?a=&b=2', "/objects/(x)!*'", '/x?a=1&a=2',
    // not plain: each takes the rebuild, and is still the same answer
    '/objects/', '//objects', '/objects/1?x', '/objects/1?a+b=c', '/objects/1?filter[tags]=t', '/objects/%41', '/Auth/x', '/objects/1?my_token=x',
    '/objects/1?p=secret', '/', '',
  ])('a URL answered by the plain check is its own rebuild: %s', (url) => {
    expect(redactUrl(url)).toBe(rebuiltUrl(url))
  })

  it('an info line written from its JSON fields is the line pino writes for them, where the logger writes, with its bindings', () => {
    const raw: string[] = []
    const log = createLogger({ service: 'svc', level: 'info', stream: { write: (line: string) => raw.push(line) } }).child({ part: 'p' })
    const fields = { reqId: 'r"1', url: '/x?a=\\b', status: 200, ms: 1.25 }
    const write = infoLines(log, 'request')
    write?.(Object.entries(fields).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(','))
    write?.('')
    log.info(fields, 'request')
    const [own, bare, pinos] = raw.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(raw.every((l) => l.endsWith('}\n'))).toBe(true)
    expect(Object.keys(own ?? {})).toEqual(Object.keys(pinos ?? {}))
    expect({ ...own, time: 0 }).toEqual({ ...pinos, time: 0 })
    expect(own).toMatchObject({ level: 30, service: 'svc', part: 'p', reqId: 'r"1', msg: 'request' })
    expect(bare).toEqual({ level: 30, time: expect.any(Number), service: 'svc', part: 'p', msg: 'request' })
  })

  it('no info lines below info', () => {
    const raw: string[] = []
    expect(infoLines(createLogger({ service: 'svc', level: 'warn', stream: { write: (line: string) => raw.push(line) } }), 'request')).toBeNull()
  })
})

