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

/**
 * A JSON text's value, or why not: too deep (checked before parsing), not JSON (JSON.parse's own
 * message), or a key that would reach an object's prototype.
 */
export type ParsedJson = { ok: true, value: unknown } | { ok: false, tooDeep: true } | { ok: false, tooDeep: false, syntax: string, prototypeKey?: true }

/**
 * The one rule for JSON from the network or a file: the depth first, then JSON.parse with
 * secure-json-parse's check (fastify's own): a `__proto__` key, which code assigning the value's keys to
 * a plain object would turn into that object's prototype (and zod's records drop silently), or a
 * `constructor.prototype`, is refused. The check scans the value only when the text holds such a key.
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
  if (value === null && text.trim() !== 'null') return { ok: false, tooDeep: false, syntax: PROTOTYPE_KEY, prototypeKey: true }
  return { ok: true, value }
}

/** A request body's JSON, parsed, or the 400 it gets: too deep (checked before parsing) or malformed. */
export type ParsedJsonBody =
  | { ok: true, value: unknown }
  | { ok: false, reason: 'JSON_TOO_DEEP' | 'MALFORMED_JSON', message: string }

/** The rule for a JSON request body, in the gateway and again in a backend a call could be forged to. */
export function parseJsonBody (text: string): ParsedJsonBody {
  const parsed = parseJson(text)
  if (parsed.ok) return parsed
  if (parsed.tooDeep) return { ok: false, reason: 'JSON_TOO_DEEP', message: `the request body ${TOO_DEEP}` }
  return { ok: false, reason: 'MALFORMED_JSON', message: parsed.prototypeKey === true ? `the request body ${PROTOTYPE_KEY}` : 'the request body is not valid JSON' }
}
