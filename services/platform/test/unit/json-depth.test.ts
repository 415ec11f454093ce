import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/json-depth.js'

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)

describe('nestsDeeperThan', () => {
  it('when nesting reaches the limit, then it passes; one level more does not', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(nestsDeeperThan(`{"a":${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toBe(true)
    expect(nestsDeeperThan(nested(200_000))).toBe(true)
  })

  it('when brackets are inside strings, escaped quotes included, then they do not count', () => {
    expect(nestsDeeperThan(JSON.stringify({ title: '['.repeat(1_000) }))).toBe(false)
    expect(nestsDeeperThan(JSON.stringify({ title: `\\"${'{'.repeat(1_000)}` }))).toBe(false)
    expect(nestsDeeperThan(`["\\\\", ${nested(MAX_JSON_DEPTH)}]`)).toBe(true)
  })

  it('when depth goes up and down, then only the deepest point counts', () => {
    expect(nestsDeeperThan(Array.from({ length: 1_000 }, () => nested(10)).join(','), 10)).toBe(false)
  })
})
