import { SEARCHED_FIELDS, type OwnFields, type SearchedFieldName } from '@content/api-schema'

/**
 * The rules of `filter[query]` that both store adapters share (decisions §3): an object matches when
 * the JS lower-case of one of its searched fields (SEARCHED_FIELDS: title, description, body) contains
 * the lower-cased query; the empty query
 * is no filter. Indexes only narrow the candidates: the exact check always runs on them.
 */

/** Trigram indexes serve queries of this many code points or more; shorter ones scan. */
export const INDEXED_MIN_LENGTH = 3

export { SEARCHED_FIELDS }

/** An object's texts the search looks in, in SEARCHED_FIELDS' order. */
export const searchedTexts = (fields: Partial<Pick<OwnFields, SearchedFieldName>>): (string | null | undefined)[] =>
  SEARCHED_FIELDS.map((f) => fields[f])

/** What the exact check looks for: the lower-cased query, or null for no text filter. */
export function searchNeedle (query: string): string | null {
  return query === '' ? null : query.toLowerCase()
}

/** Whether a trigram index can narrow a search for `needle` (lower-cased): 3 code points or more. */
export function indexable (needle: string): boolean {
  return codePoints(needle).length >= INDEXED_MIN_LENGTH
}

/**
 * The distinct trigrams (by code point) of the lower-cased texts, each text on its own so no trigram
 * spans two fields. A needle's trigrams are all among a text's when the text contains the needle.
 */
export function trigramsOf (...texts: (string | null | undefined)[]): string[] {
  const out = new Set<string>()
  for (const text of texts) {
    if (typeof text !== 'string') continue
    const cps = codePoints(text.toLowerCase())
    for (let i = 0; i + INDEXED_MIN_LENGTH <= cps.length; i++) out.add(cps.slice(i, i + INDEXED_MIN_LENGTH).join(''))
  }
  return [...out]
}

/** Code points, so that a surrogate pair is one character (as SQLite's trigram tokenizer counts). */
function codePoints (text: string): string[] {
  return Array.from(text)
}
