import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { objectWriteData, objectWriteJsonSchema } from '../src/object-body.js'

const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)
const documented = ajv.compile(objectWriteJsonSchema())

/** Both the validator and the document the API describes it with. */
const verdicts = (data: unknown) => ({ validator: objectWriteData.safeParse(data).success, document: documented({ data }) })

describe('the POST /objects body: one schema validates it and generates its OpenAPI request body', () => {
  it.each([
    ['a create', { object_type: 'document', title: 'T', parents: [1], relations: { attach: [{ related_id: 2, priority: 1, params: { a: 1 } }] } }],
    ['an update by nickname', { id: 'welcome', title: null, start_date: '2026-01-01T00:00:00Z', end_date: null }],
    ['every extra', { id: 5, custom_properties: { a: 'x', b: 2, c: true }, languages: { it: { title: 'Ciao' } }, tags: ['t'], categories: ['c'],
      geo_tags: [{ latitude: 1, longitude: 2, gmaps_lookats: { zoom: 3, mapType: 'roadmap' } }], date_items: [{ start_date: '2026-01-01T10:00:00+0200', days: [5, 1, 1] }] }],
  ])('accept %s, both of them', (_label, data) => {
    expect(verdicts(data)).toEqual({ validator: true, document: true })
  })

  it.each([
    ['an unknown field', { id: 5, colour: 'blue' }],
    ['a title of the wrong type', { id: 5, title: 5 }],
    ['a parent that is no id', { object_type: 'document', parents: ['x'] }],
    ['a priority past int32', { id: 5, relations: { attach: [{ related_id: 2, priority: 2 ** 31 }] } }],
    ['a day past Saturday', { id: 5, date_items: [{ days: [7] }] }],
    ['a latitude past the pole', { id: 5, geo_tags: [{ latitude: 91, longitude: 0 }] }],
    // names are index keys: PostgreSQL answered a long one with a 500
    ['a custom property name past 255 characters', { id: 5, custom_properties: { ['n'.repeat(256)]: 'x' } }],
    ['a translated field name past 255 characters', { id: 5, languages: { it: { ['n'.repeat(256)]: 'x' } } }],
  ])('refuse %s, both of them', (_label, data) => {
    expect(verdicts(data)).toEqual({ validator: false, document: false })
  })

  it('never have the document refuse a body the validator takes', () => {
    const field = fc.constantFrom('title', 'nickname', 'lang', 'valid', 'parents', 'id', 'tags', 'object_type', 'comments', 'custom_properties')
    const value = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.oneof(fc.integer({ min: 1, max: 9 }), fc.string({ maxLength: 3 })), { maxLength: 3 }),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean()), { maxKeys: 2 }))
    fc.assert(fc.property(fc.dictionary(field, value, { maxKeys: 4 }), (data) => {
      const v = verdicts(data)
      if (v.validator) expect(v.document, JSON.stringify(data)).toBe(true)
    }), { numRuns: 2_000 })
  })
})
