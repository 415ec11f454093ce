import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { ConfigError, baseEnv, bool, includeBudgetEnv, loadConfig, port } from '../../src/config.js'

const schema = z.object({ ...baseEnv, GRPC_PORT: port(50051), FLAG: bool(true), NAME: z.string().min(3) })

describe('loadConfig', () => {
  it('when every value is valid, then defaults fill the rest and the result is frozen', () => {
    const config = loadConfig(schema, { NAME: 'abc' })
    expect(config).toEqual({ LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: 8000, GRPC_PORT: 50051, FLAG: true, NAME: 'abc' })
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('when several values are invalid, then every problem is listed at once', () => {
    let error: unknown
    try {
      loadConfig(schema, { GRPC_PORT: '70000', FLAG: 'maybe', LOG_LEVEL: 'loud' })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    const problems = (error as ConfigError).problems.join('\n')
    for (const name of ['GRPC_PORT', 'FLAG', 'LOG_LEVEL', 'NAME']) expect(problems).toContain(name)
    expect((error as ConfigError).problems).toHaveLength(4)
  })

  it('when a variable is set to the empty string, then it counts as unset', () => {
    expect(loadConfig(schema, { NAME: 'abc', GRPC_PORT: '' }).GRPC_PORT).toBe(50051)
  })

  it.each([['true', true], ['1', true], ['false', false], ['0', false]])('reads the boolean %s as %s', (raw, value) => {
    expect(loadConfig(schema, { NAME: 'abc', FLAG: raw }).FLAG).toBe(value)
  })
})

describe('INCLUDE_BUDGET (decisions §15)', () => {
  const budget = z.object(includeBudgetEnv)
  it('defaults to 5,000 objects and takes a positive integer', () => {
    expect(loadConfig(budget, {})).toEqual({ INCLUDE_BUDGET: 5_000 })
    expect(loadConfig(budget, { INCLUDE_BUDGET: '20000' })).toEqual({ INCLUDE_BUDGET: 20_000 })
  })

  it.each(['0', '-1', '1.5', 'lots', '1250001'])('refuses %s', (value) => {
    expect(() => loadConfig(budget, { INCLUDE_BUDGET: value })).toThrow(ConfigError)
  })
})
