import { describe, expect, it } from 'vitest'
import { checkPlanAgainstStore, planFixtures, planLookups, type FixturePlan } from '../../src/core/fixtures.plan.js'

const GROUPS = ['members', 'editor']
const plan = (file: unknown) => planFixtures(JSON.stringify(file), GROUPS, 1)
const errorsOf = (file: unknown) => {
  const out = plan(file)
  return out.ok ? [] : out.errors
}

describe('planFixtures', () => {
  it('when a file is valid, then refs, forward references, defaults and relations are planned', () => {
    const out = plan({
      groups: [{ name: 'x' }], users: [],
      objects: [
        { ref: 'doc', object_type: 'document', title: 'D', parents: ['news'], relations: { attach: [{ related: 'img', params: { a: 1 } }] }, permissions: { read: ['members'] } },
        { ref: 'news', object_type: 'section', title: 'News', parents: ['@publication'] },
        { ref: 'img', object_type: 'image', start_date: '2025-01-01T00:00:00+01:00' },
      ],
    })
    expect(out.ok).toBe(true)
    if (!out.ok) return
    const [doc, news, img] = out.plan.objects
    expect(doc!.parents).toEqual([{ ref: 'news' }])
    expect(doc!.relations).toEqual([{ name: 'attach', inverse: 'attached_to', related: { ref: 'img' }, priority: null, params: '{"a":1}' }])
    expect(doc!.write).toMatchObject({ object_type: 'document', status: 'on', nickname: null, read_groups: ['members'], write_groups: [] })
    expect(news!.parents).toEqual([{ id: 1 }])
    expect(img!.write.columns.start_date).toBe(Date.UTC(2024, 11, 31, 23))
  })

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an unknown top-level key', { things: [] }, /Unrecognized key/i],
    ['an unknown object type', { objects: [{ object_type: 'blog' }] }, /objects.0.object_type: unknown object type "blog"/],
    ['a second area', { objects: [{ object_type: 'area' }] }, /only area/],
    ['a section without a parent', { objects: [{ object_type: 'section' }] }, /exactly one parent/],
    ['an unknown ref', { objects: [{ object_type: 'document', parents: ['nowhere'] }] }, /objects.0.parents.0: unknown ref "nowhere"/],
    ['a duplicate ref', { objects: [{ ref: 'a', object_type: 'document' }, { ref: 'a', object_type: 'document' }] }, /duplicate ref "a"/],
    ['a reserved ref', { objects: [{ ref: '@x', object_type: 'document' }] }, /reserved/],
    ['a bad nickname', { objects: [{ object_type: 'document', nickname: '123' }] }, /nickname: must not be all digits/],
    ['a nickname used twice', { objects: [{ object_type: 'document', nickname: 'a' }, { object_type: 'document', nickname: 'a' }] }, /used twice/],
    ['a date without zone', { objects: [{ object_type: 'document', start_date: '2025-01-01T00:00:00' }] }, /start_date: must be an ISO 8601/],
    ['date items on a document', { objects: [{ object_type: 'document', date_items: [{ days: [1] }] }] }, /only events have date items/],
    ['a bad weekday', { objects: [{ object_type: 'event', date_items: [{ days: [7] }] }] }, /days/],
    ['an unknown group', { objects: [{ object_type: 'document', permissions: { read: ['nobody'] } }] }, /unknown group "nobody"/],
    ['an unknown relation', { objects: [{ ref: 'a', object_type: 'document', relations: { likes: [{ related: 'a' }] } }] }, /unknown relation "likes"/],
    ['a self relation', { objects: [{ ref: 'a', object_type: 'document', relations: { seealso: [{ related: 'a' }] } }] }, /cannot relate to itself/],
    ['a server-owned field', { objects: [{ object_type: 'document', id: 5 }] }, /Unrecognized key/i],
    ['a parent cycle', { objects: [{ ref: 'a', object_type: 'section', parents: ['b'] }, { ref: 'b', object_type: 'section', parents: ['a'] }] }, /cycle/],
  ])('when the file has %s, then it is rejected naming the problem', (_label, file, pattern) => {
    const out = typeof file === 'string' ? planFixtures(file, GROUPS, 1) : plan(file)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.errors.join('\n')).toMatch(pattern)
  })

  it('when a file has several problems, then every one is listed', () => {
    const errors = errorsOf({ objects: [{ object_type: 'blog' }, { object_type: 'document', parents: ['x'] }, { object_type: 'document', nickname: 'A B' }] })
    expect(errors).toHaveLength(3)
  })
})

describe('checkPlanAgainstStore', () => {
  const planned = (file: unknown): FixturePlan => {
    const out = plan(file)
    if (!out.ok) throw new Error(out.errors.join('; '))
    return out.plan
  }

  it('when existing ids, types, nicknames and categories fit, then there are no errors', () => {
    const p = planned({ categories: [{ name: 'c1' }], objects: [{ ref: 'a', object_type: 'document', nickname: 'free', parents: [5], categories: ['c1', 'c2'], relations: { attach: [{ related: 9 }] } }] })
    expect(planLookups(p)).toEqual({ ids: [5, 9], nicknames: ['free'], categories: ['c1', 'c2'] })
    expect(checkPlanAgainstStore(p, { typeOfId: new Map([[5, 'section'], [9, 'image']]), takenNicknames: [], knownCategories: ['c2'] })).toEqual([])
  })

  it('when the store disagrees, then each problem is named', () => {
    const p = planned({ objects: [
      { ref: 'a', object_type: 'document', nickname: 'taken', parents: [5, 6], categories: ['nope'], relations: { attach: [{ related: 7 }], poster: [{ related: 'b' }] } },
      { ref: 'b', object_type: 'video', relations: { attached_to: [{ related: 'a' }] } },
    ] })
    const errors = checkPlanAgainstStore(p, { typeOfId: new Map([[5, 'document']]), takenNicknames: ['taken'], knownCategories: [] })
    expect(errors).toEqual([
      'objects.0.parents: object 5 is a document, not an area or section',
      'objects.0.parents: object 6 does not exist',
      'objects.0.relations.attach: object 7 does not exist',
      'objects.0.relations.poster: a document cannot relate to a video with "poster"',
      'objects.0.nickname: "taken" is already taken',
      'objects.0.categories: unknown category "nope"',
    ])
  })

  it('when the same relation is given from both sides, then it is reported once as a duplicate', () => {
    const p = planned({ objects: [
      { ref: 'a', object_type: 'document', relations: { attach: [{ related: 'b' }] } },
      { ref: 'b', object_type: 'image', relations: { attached_to: [{ related: 'a' }] } },
    ] })
    expect(checkPlanAgainstStore(p, { typeOfId: new Map(), takenNicknames: [], knownCategories: [] })).toEqual(['objects.1.relations.attached_to: a is related twice'])
  })
})
