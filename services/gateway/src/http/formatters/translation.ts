import type { ContentObject } from '@content/api-schema'

/** The text fields a translation may replace (spec 2.3); any other key of a translation is only shown in `languages`. */
export const TRANSLATABLE = ['title', 'description', 'subject', 'abstract', 'body', 'note'] as const

/** Longest tag accepted: RFC 5646 §4.4.1 advises implementations to take at least 35 characters. */
const MAX_TAG = 35

/** `?lang=`: a BCP 47 language tag, canonical; null when it is not one. */
export function canonicalTag (raw: string): string | null {
  if (raw === '' || raw.length > MAX_TAG) return null
  try {
    const [tag] = Intl.getCanonicalLocales(raw)
    return tag ?? null
  } catch {
    return null
  }
}

/**
 * RFC 4647 §3.4 lookup: the available language that matches the tag, dropping subtags from the end
 * (`de-CH-1996` → `de-CH` → `de`, never leaving a lone one-letter subtag); tags compare case-insensitively.
 */
export function lookupLanguage (tag: string, available: readonly string[]): string | undefined {
  const byLower = new Map(available.map((key) => [key.toLowerCase(), key]))
  const subtags = tag.toLowerCase().split('-')
  while (subtags.length > 0) {
    const found = byLower.get(subtags.join('-'))
    if (found !== undefined) return found
    subtags.pop()
    while (subtags.length > 1 && subtags.at(-1)!.length === 1) subtags.pop()
  }
  return undefined
}

/**
 * Decisions §14: the text fields in the language asked for where a translation has them (the main text
 * otherwise, field by field), `lang` the language served, `languages` whole. No translation: unchanged.
 */
export function translated (object: ContentObject, tag: string): ContentObject {
  const lang = lookupLanguage(tag, Object.keys(object.languages))
  if (lang === undefined) return object
  const fields = object.languages[lang]!
  const out: ContentObject = { ...object, lang }
  for (const field of TRANSLATABLE) {
    const text = fields[field]
    if (typeof text === 'string') out[field] = text
  }
  return out
}
