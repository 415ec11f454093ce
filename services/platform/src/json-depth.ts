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
