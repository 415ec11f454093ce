import { describe, expect, it } from 'vitest'
import { describeServerError, errorLines, logAround } from './support/server-log.js'

const log = [
  '{"level":30,"reqId":"a","msg":"incoming request"}',
  '{"level":30,"msg":"other"}',
  '{"level":50,"reqId":"b","msg":"request failed","err":"SQLITE_BUSY"}',
  '{"level":30,"msg":"after"}',
  '{"level":30,"msg":"far"}',
  '{"level":60,"msg":"fatal"}',
].join('\n')

describe('the services\' log around a failed request', () => {
  it('keeps the lines naming the request, with their neighbours', () => {
    expect(logAround(log, 'b', 1)).toEqual([
      '{"level":30,"msg":"other"}', '{"level":50,"reqId":"b","msg":"request failed","err":"SQLITE_BUSY"}', '{"level":30,"msg":"after"}',
    ])
    expect(logAround(log, 'nobody')).toEqual([])
    expect(logAround(log, undefined)).toEqual([])
  })

  it('finds the error-level lines', () => {
    expect(errorLines(log).map((l) => JSON.parse(l).msg)).toEqual(['request failed', 'fatal'])
  })

  it('says what failed and what was logged; without an id, the error lines', async () => {
    const said = await describeServerError('POST /objects → 500', 'b', () => log)
    expect(said).toMatch(/^POST \/objects → 500 \(request b\)\nthe services logged:\n/)
    expect(said).toContain('"err":"SQLITE_BUSY"')
    expect(await describeServerError('GET / → 503', undefined, () => log)).toMatch(/without an id[\s\S]*SQLITE_BUSY[\s\S]*fatal/)
  })
})
