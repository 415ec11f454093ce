import type { ContentObject } from '@content/api-schema'
import { describe, expect, it } from 'vitest'
import { canonicalTag, lookupLanguage, translated } from '../../src/http/formatters/translation.js'

const object = {
  id: 5, lang: 'en', title: 'Hello', description: 'About', subject: null, abstract: null, body: 'Body', note: null,
  languages: { 'it': { title: 'Ciao', body: 'Corpo', nickname: 'ciao' }, 'pt-BR': { title: 'Olá' } },
} as unknown as ContentObject

describe('language tags (?lang=)', () => {
  it.each([['en', 'en'], ['EN', 'en'], ['pt-br', 'pt-BR'], ['zh-hant-tw', 'zh-Hant-TW'], ['de-CH-1996', 'de-CH-1996'], ['sr-Latn', 'sr-Latn']])('%s is the tag %s', (raw, tag) => {
    expect(canonicalTag(raw)).toBe(tag)
  })

  it.each(['', '1', 'x', 'en_US', 'en--us', '<script>', 'en-', '-en', 'a'.repeat(36), `en-${'abcdefgh-'.repeat(4)}x`])('%j is not a language tag', (raw) => {
    expect(canonicalTag(raw)).toBeNull()
  })
})

describe('lookup (RFC 4647 §3.4)', () => {
  it('finds the exact tag, case-insensitively, then drops subtags from the end', () => {
    expect(lookupLanguage('pt-BR', ['pt-br', 'pt'])).toBe('pt-br')
    expect(lookupLanguage('it-CH', ['it', 'en'])).toBe('it')
    expect(lookupLanguage('zh-Hant-TW', ['zh-Hant', 'zh'])).toBe('zh-Hant')
    expect(lookupLanguage('de-x-a-b', ['de'])).toBe('de')
  })

  it('canonicalizes the stored keys too: ISO 639-2 codes, aliases and underscores find their language', () => {
    expect(lookupLanguage('it', ['ita'])).toBe('ita')
    expect(lookupLanguage('ita', ['it'])).toBe('it')
    expect(lookupLanguage('pt-BR', ['pt_br'])).toBe('pt_br')
    expect(lookupLanguage('he', ['iw'])).toBe('iw')
    expect(lookupLanguage('it', ['ita', 'it'])).toBe('it')
    expect(lookupLanguage('en', ['not a tag'])).toBeUndefined()
  })

  it('never leaves a lone one-letter subtag, and finds nothing rather than another language', () => {
    expect(lookupLanguage('en-x-private', ['en-x'])).toBeUndefined()
    expect(lookupLanguage('de-x-a-b', ['de-x', 'de-x-a'])).toBeUndefined()
    expect(lookupLanguage('fr', ['it', 'en'])).toBeUndefined()
    expect(lookupLanguage('pt', ['pt-BR'])).toBeUndefined()
  })
})

describe('translated objects (decisions §14)', () => {
  it('replaces the translated text fields, keeps the others, serves the language and keeps languages whole', () => {
    const out = translated(object, 'it')
    expect(out).toMatchObject({ lang: 'it', title: 'Ciao', body: 'Corpo', description: 'About', subject: null })
    expect(out.languages).toEqual(object.languages)
    // only the text fields of spec 2.3 are translated
    expect((out as unknown as Record<string, unknown>).nickname).toBeUndefined()
    expect(object.title).toBe('Hello')
  })

  it('answers the stored spelling of the language it served', () => {
    expect(translated(object, 'pt-BR')).toMatchObject({ lang: 'pt-BR', title: 'Olá', body: 'Body' })
  })

  it('leaves an object without that language as it is, in its main language', () => {
    expect(translated(object, 'fr')).toBe(object)
  })
})
