import { TRANSLATABLE_FIELDS, type ContentObject } from '@content/api-schema'
import { present } from '@content/platform'


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

/** A stored key of `languages` as a comparable tag: canonical when it is one (`ita` → `it`, `pt_BR` → `pt-BR`), else as is. */
const comparable = (key: string) => (canonicalTag(key.replaceAll('_', '-')) ?? key).toLowerCase()

/**
 * RFC 4647 §3.4 lookup: the available language that matches the tag, dropping subtags from the end
 * (`de-CH-1996` → `de-CH` → `de`, never leaving a lone one-letter subtag). Both sides are canonicalized
 * and compared case-insensitively, so `ita`, `IT` and `it` are one language; the stored key is returned.
 */
export function lookupLanguage (tag: string, available: readonly string[]): string | undefined {
  const byTag = new Map<string, string>()
  for (const key of available) {
    const canon = comparable(key)
    // two keys for one language: the one already spelled canonically wins
    if (!byTag.has(canon) || key.toLowerCase() === canon) byTag.set(canon, key)
  }
  const subtags = (canonicalTag(tag) ?? tag).toLowerCase().split('-')
  while (subtags.length > 0) {
    const found = byTag.get(subtags.join('-'))
    if (found !== undefined) return found
    subtags.pop()
    while (subtags.length > 1 && subtags.at(-1)?.length === 1) subtags.pop()
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
  const fields = present(object.languages[lang], `the ${lang} translation`)
  const out: ContentObject = { ...object, lang }
  // only the text fields a translation may replace; any other key of a translation is shown in `languages` alone
  for (const field of TRANSLATABLE_FIELDS) {
    const text = fields[field]
    if (typeof text === 'string') out[field] = text
  }
  return out
}
