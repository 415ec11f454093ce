import { describe, expect, it } from 'vitest'
import { canonicalJson, requestHash } from '../../src/http/idempotency.js'

describe('request fingerprints for Idempotency-Key', () => {
  it.each([
    [{ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    [[2, 1], '[2,1]'],
    ['text', '"text"'],
    [undefined, ''],
  ])('canonicalJson(%j) = %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text)
  })

  it('the same method, path and JSON give one hash; any difference gives another', () => {
    const base = requestHash('post', '/objects', { data: { a: 1, b: 2 } })
    expect(requestHash('POST', '/objects', { data: { b: 2, a: 1 } })).toBe(base)
    expect(base).toMatch(/^[0-9a-f]{64}$/)
    for (const other of [
      requestHash('put', '/objects', { data: { a: 1, b: 2 } }),
      requestHash('post', '/objects/1/children', { data: { a: 1, b: 2 } }),
      requestHash('post', '/objects', { data: { a: 1, b: 3 } }),
      requestHash('post', '/objects', { data: [{ a: 1, b: 2 }] }),
    ]) expect(other).not.toBe(base)
  })
})
