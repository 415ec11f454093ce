/** Deepest nesting of arrays and objects a request body may have; real write bodies need a handful. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether `text` nests arrays and objects deeper than `max`, found by one pass over the characters
 * (brackets inside strings do not count) before any parsing: a deep body never reaches JSON.parse, nor
 * the recursion of whatever handles its value later.
 */
export function nestsDeeperThan (text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/** A request body's JSON, parsed, or the 400 it gets: too deep (checked before parsing) or malformed. */
export type ParsedJsonBody =
  | { ok: true, value: unknown }
  | { ok: false, reason: 'JSON_TOO_DEEP' | 'MALFORMED_JSON', message: string }

/** The one rule for a JSON request body, in the gateway and again in a backend a call could be forged to. */
export function parseJsonBody (text: string): ParsedJsonBody {
  if (nestsDeeperThan(text)) return { ok: false, reason: 'JSON_TOO_DEEP', message: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false, reason: 'MALFORMED_JSON', message: 'the request body is not valid JSON' }
  }
}
