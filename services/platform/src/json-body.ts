import secureJson from 'secure-json-parse'

/** Deepest nesting of arrays and objects a request body may have; real write bodies need a handful. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether `text` nests arrays and objects deeper than `max`, found by one pass over the characters
 * (brackets inside strings do not count) before any parsing: a deep body never reaches JSON.parse, nor
 * the recursion of whatever handles its value later. A string is skipped with `indexOf` to its closing
 * quote (one after an even run of backslashes): strings hold most of a large file's characters, and the
 * pass over a 54 MB fixtures file took 114-254 ms character by character, 45-54 ms so.
 */
export function nestsDeeperThan (text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = closingQuote(text, i)
      if (i === -1) return false // an unterminated string: not deep, and JSON.parse refuses it
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function closingQuote (text: string, open: number): number {
  let quote = open
  for (;;) {
    quote = text.indexOf('"', quote + 1)
    if (quote === -1) return -1
    let before = quote - 1
    while (text.charCodeAt(before) === 0x5c) before--
    // the quote is escaped when an odd number of backslashes precedes it (the opening quote stops the walk)
    if ((quote - 1 - before) % 2 === 0) return quote
  }
}

/** What the depth rule refuses, as a problem of a text: "the request body …", "(root): …". */
export const TOO_DEEP = `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`

/** What the prototype rule refuses, as a problem of a text: "the request body …", "(root): …". */
export const PROTOTYPE_KEY = 'holds a "__proto__" key or a "constructor" with a "prototype", refused as fastify refuses them'

/** What the text rules refuse, as problems of a text: "the request body …", "(root): …". */
export const LONE_SURROGATE = 'holds a string with an unpaired surrogate escape (such as "\\ud800"), which is no Unicode text (I-JSON, RFC 7493)'
/** PostgreSQL cannot keep U+0000 in a text, nor MongoDB in a key: refused on every store, so that each answers alike. */
export const NUL_CHARACTER = 'holds a string with U+0000 ("\\u0000"), which no text may hold'

/** The rules a parsed text can break: a key reaching a prototype, a string that is not Unicode text, a string with U+0000. */
type JsonRule = 'prototype_key' | 'lone_surrogate' | 'nul_character'

/**
 * A JSON text's value, or why not: too deep (checked before parsing), not JSON (JSON.parse's own
 * message), or a rule it breaks (`syntax` then says which, as a problem of a text).
 */
export type ParsedJson = { ok: true, value: unknown } | { ok: false, tooDeep: true } | { ok: false, tooDeep: false, syntax: string, rule?: JsonRule }

/**
 * Escapes of a UTF-16 surrogate and of U+0000, the only ways a JSON text can spell either (its own
 * characters are decoded text, and a raw control character is no JSON): the value is walked only then.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/
const NUL_ESCAPE = /\\u0000/
/** With the `u` flag a paired surrogate is one code point: only an unpaired one matches. */
const UNPAIRED = /\p{Cs}/u
const unpaired = (text: string): boolean => UNPAIRED.test(text)
const nul = (text: string): boolean => text.includes('\u0000')

/** Whether a string of the value, or a key, is one `refused` finds. */
function holdsText (value: unknown, refused: (text: string) => boolean): boolean {
  if (typeof value === 'string') return refused(value)
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) return value.some((item) => holdsText(item, refused))
  for (const [key, item] of Object.entries(value)) if (refused(key) || holdsText(item, refused)) return true
  return false
}

/**
 * The one rule for JSON from the network or a file: the depth first, then JSON.parse with
 * secure-json-parse's check (fastify's own): a `__proto__` key, which code assigning the value's keys to
 * a plain object would turn into that object's prototype (and zod's records drop silently), or a
 * `constructor.prototype`, is refused. The check scans the value only when the text holds such a key;
 * so do the checks of its strings (an unpaired surrogate, U+0000), only when the text escapes one.
 */
export function parseJson (text: string): ParsedJson {
  if (nestsDeeperThan(text)) return { ok: false, tooDeep: true }
  let value: unknown
  try {
    value = secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error', safe: true }) as unknown
  } catch (err) {
    return { ok: false, tooDeep: false, syntax: (err as Error).message }
  }
  // safe mode answers null for a refused key; a text that is JSON's null says so itself
  if (value === null && text.trim() !== 'null') return { ok: false, tooDeep: false, syntax: PROTOTYPE_KEY, rule: 'prototype_key' }
  // a store would keep such a string as bytes that are not UTF-8 (SQLite) or as U+FFFD (PostgreSQL): neither is what was sent
  if (SURROGATE_ESCAPE.test(text) && holdsText(value, unpaired)) return { ok: false, tooDeep: false, syntax: LONE_SURROGATE, rule: 'lone_surrogate' }
  if (NUL_ESCAPE.test(text) && holdsText(value, nul)) return { ok: false, tooDeep: false, syntax: NUL_CHARACTER, rule: 'nul_character' }
  return { ok: true, value }
}

/** A request body's JSON, parsed, or the 400 it gets: too deep (checked before parsing), malformed, or a text no store keeps. */
export type ParsedJsonBody =
  | { ok: true, value: unknown }
  | { ok: false, reason: 'JSON_TOO_DEEP' | 'MALFORMED_JSON', message: string }
  | { ok: false, reason: 'VALIDATION_FAILED', message: string, details: { text: string } }

/** The rule for a JSON request body, in the gateway and again in a backend a call could be forged to. */
export function parseJsonBody (text: string): ParsedJsonBody {
  const parsed = parseJson(text)
  if (parsed.ok) return parsed
  if (parsed.tooDeep) return { ok: false, reason: 'JSON_TOO_DEEP', message: `the request body ${TOO_DEEP}` }
  if (parsed.rule === 'nul_character') return { ok: false, reason: 'VALIDATION_FAILED', message: `the request body ${NUL_CHARACTER}`, details: { text: 'must not contain U+0000' } }
  return { ok: false, reason: 'MALFORMED_JSON', message: parsed.rule === undefined ? 'the request body is not valid JSON' : `the request body ${parsed.syntax}` }
}
