import { describe, expect, it } from 'vitest'
import { LONE_SURROGATE, MAX_JSON_DEPTH, NUL_CHARACTER, PROTOTYPE_KEY, nestsDeeperThan, parseJson, parseJsonBody } from '../../src/json-body.js'
import { seededRandom } from '../../src/testing.js'

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

  it('when strings hold quotes after runs of backslashes, then it answers as a character-by-character pass does', () => {
    // the pass as first written: every character read, a backslash skipping the next one
    const oracle = (text: string, max: number): boolean => {
      let depth = 0
      let inString = false
      for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (inString) {
          if (c === '\\') i++
          else if (c === '"') inString = false
        } else if (c === '"') inString = true
        else if (c === '[' || c === '{') {
          if (++depth > max) return true
        } else if (c === ']' || c === '}') depth--
      }
      return false
    }
    // seeded (a 32-bit linear congruential generator never put three backslashes before a quote)
    const next = seededRandom(7)
    const random = (n: number) => Math.floor(next() * n)
    const texts = new Set<string>()
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', ',']
    for (let n = 0; n < 5_000; n++) {
      const text = Array.from({ length: 1 + random(40) }, () => alphabet[random(alphabet.length)]).join('')
      const max = 1 + random(4)
      texts.add(text)
      expect(nestsDeeperThan(text, max), `${JSON.stringify(text)} at ${max}`).toBe(oracle(text, max))
    }
    // varied enough to hold quotes after even and odd runs of two and three backslashes
    expect(texts.size).toBeGreaterThan(4_500)
    const after = (run: string) => [...texts].filter((t) => new RegExp(`(^|[^\\\\])${run}"`).test(t)).length
    expect(after('\\\\\\\\')).toBeGreaterThan(20)
    expect(after('\\\\\\\\\\\\')).toBeGreaterThan(10)
    expect(nestsDeeperThan(JSON.stringify({ a: '\\', b: [[[1]]] }), 2)).toBe(true)
    expect(nestsDeeperThan(JSON.stringify({ a: '\\"[[[', b: [1] }), 2)).toBe(false)
    expect(nestsDeeperThan('["unterminated [[[[', 2)).toBe(false)
  })

  it('when depth goes up and down, then only the deepest point counts', () => {
    expect(nestsDeeperThan(Array.from({ length: 1_000 }, () => nested(10)).join(','), 10)).toBe(false)
  })
})

describe('parseJson', () => {
  it('when the text is JSON within the depth, then its value; too deep, then that without parsing; otherwise JSON.parse\'s message', () => {
    expect(parseJson('[1, {"a": "b"}]')).toEqual({ ok: true, value: [1, { a: 'b' }] })
    expect(parseJson(`${nested(MAX_JSON_DEPTH + 1)}}`)).toEqual({ ok: false, tooDeep: true })
    const malformed = parseJson('{"a": }')
    expect(malformed).toMatchObject({ ok: false, tooDeep: false })
    expect(malformed.ok === false && !malformed.tooDeep && malformed.syntax).toMatch(/JSON/)
  })
})

describe('parseJson, keys that reach a prototype', () => {
  it('when a key is __proto__, spelled plainly or escaped, or a constructor holds a prototype, at any depth, then it is refused', () => {
    for (const text of ['{"__proto__":{"admin":true}}', '{"data":{"a":[{"\\u005f_proto__":1}]}}', '{"data":{"constructor":{"prototype":{"x":1}}}}']) {
      expect(parseJson(text), text).toMatchObject({ ok: false, tooDeep: false, rule: 'prototype_key', syntax: PROTOTYPE_KEY })
      expect(parseJsonBody(text), text).toEqual({ ok: false, reason: 'MALFORMED_JSON', message: `the request body ${PROTOTYPE_KEY}` })
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })

  it('when constructor, toString or a key holding "__proto__" are plain keys, or the text is null, then the value is answered', () => {
    expect(parseJson('{"constructor":"a","toString":{"b":1},"x__proto__":2,"v":"__proto__"}')).toEqual({ ok: true, value: { constructor: 'a', toString: { b: 1 }, x__proto__: 2, v: '__proto__' } })
    expect(parseJson(' null ')).toEqual({ ok: true, value: null })
  })
})

describe('parseJson, strings that are not Unicode text', () => {
  it('when a value or a key, at any depth, escapes an unpaired surrogate (high or low, in any case), then it is refused', () => {
    for (const text of ['{"title":"a\\ud800b"}', '{"data":{"a":["x","\\uDFFF"]}}', '{"data":{"\\udbff":1}}', '["\\ude00\\ud83d"]', '"\\ud83d"']) {
      expect(parseJson(text), text).toMatchObject({ ok: false, tooDeep: false, rule: 'lone_surrogate', syntax: LONE_SURROGATE })
      expect(parseJsonBody(text), text).toEqual({ ok: false, reason: 'MALFORMED_JSON', message: `the request body ${LONE_SURROGATE}` })
    }
  })

  it('when surrogates are escaped in pairs, written as characters, or a backslash is itself escaped, then the value is answered', () => {
    expect(parseJson('{"t":"\\ud83d\\ude00","u":"😀","v":"\\\\ud800"}')).toEqual({ ok: true, value: { t: '😀', u: '😀', v: '\\ud800' } })
  })
})

describe('parseJson, U+0000', () => {
  it('when a value or a key, at any depth, holds U+0000, then it is refused, and a body gets the store\'s 400 for it', () => {
    for (const text of ['{"title":"a\\u0000b"}', '{"data":{"a":[1,"\\u0000"]}}', '{"data":{"custom_properties":{"k\\u0000":"v"}}}']) {
      expect(parseJson(text), text).toMatchObject({ ok: false, tooDeep: false, rule: 'nul_character', syntax: NUL_CHARACTER })
      expect(parseJsonBody(text), text).toEqual({ ok: false, reason: 'VALIDATION_FAILED', message: `the request body ${NUL_CHARACTER}`, details: { text: 'must not contain U+0000' } })
    }
  })

  it('when "\\u0000" is only spelled, with its backslash escaped, then the value is answered', () => {
    expect(parseJson('{"t":"\\\\u0000"}')).toEqual({ ok: true, value: { t: '\\u0000' } })
  })
})

describe('parseJsonBody', () => {
  it('when the text is JSON within the depth, then its value; otherwise the reason and message of the 400', () => {
    expect(parseJsonBody(' {"data": [1, {"a": null}]} ')).toEqual({ ok: true, value: { data: [1, { a: null }] } })
    expect(parseJsonBody('"text"')).toEqual({ ok: true, value: 'text' })
    expect(parseJsonBody('{"data":')).toEqual({ ok: false, reason: 'MALFORMED_JSON', message: 'the request body is not valid JSON' })
    expect(parseJsonBody(nested(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, reason: 'JSON_TOO_DEEP', message: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` })
    // deep and malformed: depth is checked first, without parsing
    expect(parseJsonBody(`${nested(MAX_JSON_DEPTH + 1)}}`)).toMatchObject({ ok: false, reason: 'JSON_TOO_DEEP' })
  })
})
