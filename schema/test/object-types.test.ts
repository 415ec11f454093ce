import { describe, expect, it } from 'vitest'
import { OWN_FIELD_DEFAULTS, TRANSLATABLE_FIELDS, withNickname } from '../src/object-fields.js'
import { MEDIA_TYPES, OBJECT_TYPE_NAMES, OBJECT_TYPE_TRAITS, TYPE_BY_PLURAL, isMediaType, isObjectType, parseObjectRef, traitsOf } from '../src/object-types.js'

describe('the object type traits (decisions §4, §9, §12)', () => {
  it('name every type with its numeric id', () => {
    expect(Object.fromEntries(OBJECT_TYPE_NAMES.map((t) => [t, OBJECT_TYPE_TRAITS[t].id]))).toEqual({
      area: 1, section: 3, b_e_file: 10, image: 12, short_news: 18, event: 21, document: 22,
      gallery: 29, application: 30, audio: 31, video: 32, link: 33, card: 34,
    })
  })

  it('give each type one plural, and each plural one type', () => {
    expect(Object.keys(TYPE_BY_PLURAL)).toHaveLength(OBJECT_TYPE_NAMES.length)
    expect(TYPE_BY_PLURAL).toMatchObject({ galleries: 'gallery', short_news: 'short_news', audio: 'audio', b_e_files: 'b_e_file', documents: 'document' })
  })

  it('say which types hold children, carry a file, show a size, have date items, and are written by default', () => {
    const flagged = (flag: 'treeNode' | 'takesFile' | 'sized' | 'dateItems' | 'writableByDefault') => OBJECT_TYPE_NAMES.filter((t) => OBJECT_TYPE_TRAITS[t][flag])
    expect(flagged('treeNode')).toEqual(['area', 'section'])
    expect(flagged('takesFile')).toEqual(['b_e_file', 'image', 'audio', 'video'])
    expect(MEDIA_TYPES).toEqual(flagged('takesFile'))
    expect(flagged('sized')).toEqual(['image'])
    expect(flagged('dateItems')).toEqual(['event'])
    expect(flagged('writableByDefault')).toEqual(OBJECT_TYPE_NAMES.filter((t) => t !== 'area'))
  })

  it('answer for a name that is no type as for nothing: no flag set', () => {
    expect(isObjectType('widget')).toBe(false)
    expect(isObjectType('constructor')).toBe(false)
    expect(isMediaType('toString')).toBe(false)
    expect(traitsOf('__proto__')).toMatchObject({ treeNode: false, takesFile: false, sized: false, dateItems: false, writableByDefault: false })
  })
})

describe('parseObjectRef: the one rule of `{object_id}` (decisions §4)', () => {
  it.each([
    ['42', { id: 42 }], ['007', { id: 7 }], ['9007199254740991', { id: 9007199254740991 }],
    ['hello', { nickname: 'hello' }], ['n42', { nickname: 'n42' }], ['5a', { nickname: '5a' }], [' 5', { nickname: ' 5' }], ['-1', { nickname: '-1' }],
    ['0', null], ['000', null], ['', null], ['9007199254740992', null], ['99999999999999999999', null],
  ])('when the reference is %j, then it names %j', (text, expected) => {
    expect(parseObjectRef(text)).toEqual(expected)
  })
})

describe('the own fields (OWN_FIELDS, spec 2.3)', () => {
  it('list every field a write sets and a read shows beside identity and bookkeeping, in the spec\'s order, with nickname after the texts', () => {
    expect(withNickname(() => 0, 0).map(([f]) => f)).toEqual([
      'title', 'description', 'subject', 'abstract', 'body', 'note', 'nickname', 'lang', 'rights', 'license', 'creator', 'publisher',
      'comments', 'valid', 'start_date', 'end_date', 'publication_date',
    ])
  })

  it('give a new object its defaults, and translations the long texts', () => {
    expect(OWN_FIELD_DEFAULTS).toEqual({
      title: null, description: null, subject: null, abstract: null, body: null, note: null, lang: 'en', rights: '', license: '',
      creator: '', publisher: '', comments: 'off', valid: true, start_date: null, end_date: null, publication_date: null,
    })
    expect(TRANSLATABLE_FIELDS).toEqual(['title', 'description', 'subject', 'abstract', 'body', 'note'])
  })
})
