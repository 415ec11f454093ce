import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { indexable, searchNeedle, trigramsOf } from '../../src/core/text-search.js'

describe('text search rules', () => {
  it('when the query is empty, then there is no text filter; else the needle is the lower-case query', () => {
    expect(searchNeedle('')).toBeNull()
    expect(searchNeedle('ÄbC İ')).toBe('äbc i̇')
  })

  it.each([
    ['ab', false], ['abc', true], ['😀😀', false], ['😀😀😀', true], ['e\u0301e', true], ['ß', false],
  ])('when the needle is %j, then the index serves it: %s', (needle, expected) => {
    expect(indexable(needle)).toBe(expected)
  })

  it('when texts are given, then the trigrams are the distinct lower-case ones by code point, none across fields', () => {
    expect(trigramsOf('AbCb', null, undefined, 'bcb', 'xy').sort()).toEqual(['abc', 'bcb'])
    expect(trigramsOf('😀A😀')).toEqual(['😀a😀'])
    expect(trigramsOf('ab', 'cd')).toEqual([])
  })

  it('when a text contains the needle (JS lower-case), then every trigram of the needle is among the text\'s', () => {
    const unit = fc.oneof(fc.constantFrom('İ', 'i', '\u0307', 'Σ', 'ς', 'ẞ', 'ß', 'Ꭰ', '😀', 'A', 'a'), fc.string({ unit: 'grapheme', maxLength: 1 }))
    const text = fc.array(unit, { maxLength: 16 }).map((u) => u.join(''))
    fc.assert(fc.property(text, fc.nat(), fc.nat(), fc.boolean(), (t, a, b, upper) => {
      const lower = Array.from(t.toLowerCase())
      const from = a % (lower.length + 1)
      const query = lower.slice(from, from + 3 + (b % 6)).join('')
      const needle = searchNeedle(upper ? query.toUpperCase() : query)
      if (needle === null || !t.toLowerCase().includes(needle)) return
      const own = new Set(trigramsOf(t))
      expect(trigramsOf(needle).filter((g) => !own.has(g))).toEqual([])
    }), { numRuns: 500 })
  })
})
