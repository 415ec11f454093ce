import { describe, expect, it } from 'vitest'
import { checkPlanAgainstStore, planFixtures, planLookups, type FixturePlan } from '../../src/core/fixtures.plan.js'
import { must } from '../support/must.js'

const GROUPS = ['members', 'editor']
const KEY = 'ab'.repeat(32)
const FILE = { key: KEY, name: 'photo.jpg', mime_type: 'image/jpeg', size: 2048, width: 40, height: 30 }
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
    expect(must(doc).parents).toEqual([{ ref: 'news' }])
    expect(must(doc).relations).toEqual([{ name: 'attach', inverse: 'attached_to', related: { ref: 'img' }, priority: null, params: '{"a":1}' }])
    expect(must(doc).write).toMatchObject({ object_type: 'document', status: 'on', nickname: null, read_groups: ['members'], write_groups: [] })
    expect(must(news).parents).toEqual([{ id: 1 }])
    expect(must(img).write.columns.start_date).toBe(Date.UTC(2024, 11, 31, 23))
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
    ['date items on a document', { objects: [{ object_type: 'document', date_items: [{ days: [1] }] }] }, /objects\.0\.date_items: a document has no date items/],
    ['a window ending before it starts', { objects: [{ object_type: 'document', start_date: '2025-01-02T00:00:00Z', end_date: '2025-01-01T00:00:00Z' }] }, /objects\.0\.end_date: must not be before start_date/],
    ['a bad weekday', { objects: [{ object_type: 'event', date_items: [{ days: [7] }] }] }, /days/],
    ['an unknown group', { objects: [{ object_type: 'document', permissions: { read: ['nobody'] } }] }, /unknown group "nobody"/],
    ['an unknown relation', { objects: [{ ref: 'a', object_type: 'document', relations: { likes: [{ related: 'a' }] } }] }, /unknown relation "likes"/],
    ['a self relation', { objects: [{ ref: 'a', object_type: 'document', relations: { seealso: [{ related: 'a' }] } }] }, /cannot relate to itself/],
    ['a server-owned field', { objects: [{ object_type: 'document', id: 5 }] }, /Unrecognized key/i],
    ['a parent cycle', { objects: [{ ref: 'a', object_type: 'section', parents: ['b'] }, { ref: 'b', object_type: 'section', parents: ['a'] }] }, /cycle/],
    // as the text of params it would overflow JSON.stringify's stack (5,000 levels): refused before parsing
    ['relation params nested 5,000 deep', `{"objects":[{"ref":"a","object_type":"document","relations":{"seealso":[{"related":"b","params":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}]}},{"ref":"b","object_type":"document"}]}`, /\(root\): nests arrays and objects deeper than 64 levels/],
  ])('when the file has %s, then it is rejected naming the problem', (_label, file, pattern) => {
    const out = typeof file === 'string' ? planFixtures(file, GROUPS, 1) : plan(file)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.errors.join('\n')).toMatch(pattern)
  })

  describe('parent cycles', () => {
    const cycleErrors = (objects: { ref?: string, parents: string[] }[]) =>
      errorsOf({ objects: objects.map((o) => ({ ...o, object_type: 'section', parents: o.parents.length > 0 ? o.parents : ['@publication'] })) })
        .filter((e) => e.includes('cycle'))
    const named = (...refs: string[]) => refs.map((r) => `objects: "${r}" is placed under itself (a parent cycle)`)

    /** The walk the check makes, written plainly (recursive): what its answers must equal. */
    const expected = (objects: { ref?: string, parents: string[] }[]): string[] => {
      const parentsOf = new Map<string, string[]>()
      for (const o of objects) if (o.ref !== undefined) parentsOf.set(o.ref, o.parents)
      const state = new Map<string, string>()
      const visit = (ref: string): boolean => {
        if (state.get(ref) === 'done') return false
        if (state.get(ref) === 'visiting') return true
        state.set(ref, 'visiting')
        const cyclic = (parentsOf.get(ref) ?? []).some(visit)
        state.set(ref, 'done')
        return cyclic
      }
      return named(...[...parentsOf.keys()].filter((ref) => state.get(ref) === undefined && visit(ref)))
    }

    it('when parents form cycles, then each walk that meets one names where it began', () => {
      expect(cycleErrors([{ ref: 'a', parents: ['b'] }, { ref: 'b', parents: ['a'] }])).toEqual(named('a'))
      expect(cycleErrors([{ ref: 'a', parents: ['a'] }])).toEqual(named('a'))
      expect(cycleErrors([{ ref: 'c', parents: ['a'] }, { ref: 'a', parents: ['b'] }, { ref: 'b', parents: ['a'] }, { ref: 'd', parents: ['d'] }])).toEqual(named('c', 'd'))
      // a repeated ref is walked as its last object: here that one closes a cycle through an earlier object
      expect(cycleErrors([{ ref: 'a', parents: [] }, { ref: 'b', parents: ['a'] }, { ref: 'a', parents: ['b'] }])).toEqual(named('a'))
    })

    it('when refs name later objects in random shapes, then the errors are those of the plain walk', () => {
      let seed = 7
      const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n }
      for (let round = 0; round < 300; round++) {
        const size = 1 + random(8)
        const objects = Array.from({ length: size }, () => ({ ref: `r${random(size + 1)}`, parents: [] as string[] }))
        const refs = [...new Set(objects.map((o) => o.ref))]
        for (const o of objects) o.parents = [...new Set(Array.from({ length: random(3) }, () => refs[random(refs.length)] as string))]
        expect(cycleErrors(objects)).toEqual(expected(objects))
      }
    })

    it('when sections nest 50,000 deep, parents named after their children, then the walk neither overflows nor errs, and a closed chain errs once', () => {
      const depth = 50_000
      const chain = Array.from({ length: depth }, (_, i) => ({ ref: `s${i}`, parents: i === depth - 1 ? [] : [`s${i + 1}`] }))
      expect(cycleErrors(chain)).toEqual([])
      expect(cycleErrors([...chain.slice(0, -1), { ref: `s${depth - 1}`, parents: ['s0'] }])).toEqual(named('s0'))
    })
  })

  it('when a media object carries a stored file, then it is planned as its file column; width and height default to 0', () => {
    const out = plan({ objects: [
      { object_type: 'image', file: FILE },
      { object_type: 'b_e_file', file: { key: KEY, name: 'guide.pdf', mime_type: 'application/pdf', size: 1 } },
      { object_type: 'video' },
    ] })
    expect(out.ok).toBe(true)
    if (!out.ok) return
    expect(out.plan.objects.map((o) => o.write.columns.file)).toEqual([
      FILE, { key: KEY, name: 'guide.pdf', mime_type: 'application/pdf', size: 1, width: 0, height: 0 }, null,
    ])
  })

  it.each([
    ['a file on a document', { object_type: 'document', file: FILE }, /objects.0.file: a document takes no file/],
    ['a file on a section', { object_type: 'section', parents: ['@publication'], file: FILE }, /objects.0.file: a section takes no file/],
    ['a file given as a path', { object_type: 'image', file: 'media/pic.jpg' }, /objects.0.file: /],
    ['a key that is not a SHA-256', { object_type: 'image', file: { ...FILE, key: 'AB'.repeat(32) } }, /objects.0.file.key: must be 64 lower-case hex digits/],
    ['a short key', { object_type: 'image', file: { ...FILE, key: 'ab' } }, /objects.0.file.key/],
    ['a name with a slash', { object_type: 'image', file: { ...FILE, name: 'a/b.jpg' } }, /objects.0.file.name: must not contain "\/"/],
    ['a name with a backslash', { object_type: 'image', file: { ...FILE, name: 'a\\b.jpg' } }, /objects.0.file.name/],
    ['a name with a control character', { object_type: 'image', file: { ...FILE, name: 'a\u0007.jpg' } }, /objects.0.file.name: must not contain control characters/],
    ['an empty name', { object_type: 'image', file: { ...FILE, name: '' } }, /objects.0.file.name: must not be empty/],
    ['a name over 255 bytes', { object_type: 'image', file: { ...FILE, name: `${'à'.repeat(126)}.jpg` } }, /objects.0.file.name: must be at most 255 UTF-8 bytes/],
    ['a MIME type without subtype', { object_type: 'image', file: { ...FILE, mime_type: 'image' } }, /objects.0.file.mime_type/],
    ['a zero size', { object_type: 'image', file: { ...FILE, size: 0 } }, /objects.0.file.size/],
    ['a fractional size', { object_type: 'image', file: { ...FILE, size: 1.5 } }, /objects.0.file.size/],
    ['a size past safe integers', { object_type: 'image', file: { ...FILE, size: 2 ** 53 } }, /objects.0.file.size/],
    ['a negative width', { object_type: 'image', file: { ...FILE, width: -1 } }, /objects.0.file.width/],
    ['an unknown file field', { object_type: 'image', file: { ...FILE, path: 'x' } }, /objects.0.file/],
  ])('when the file has %s, then it is rejected naming the field', (_label, object, pattern) => {
    const out = plan({ objects: [object] })
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

  it('when pairs differ only in where names and refs could be cut apart, or a ref is spelled as an id, then none is a duplicate', () => {
    const p = planned({ objects: [
      { ref: 'a|attach|r:b', object_type: 'document', relations: { seealso: [{ related: 'c' }] } },
      { ref: 'a', object_type: 'document', relations: { attach: [{ related: 'b|seealso|r:c' }], seealso: [{ related: '7' }, { related: 7 }] } },
      { ref: 'b|seealso|r:c', object_type: 'image' },
      { ref: 'c', object_type: 'document' },
      { ref: '7', object_type: 'document' },
    ] })
    expect(checkPlanAgainstStore(p, { typeOfId: new Map([[7, 'document']]), takenNicknames: [], knownCategories: [] })).toEqual([])
  })

  it('when an object relates to the same one twice under one name, then each repeat is named, also past the second', () => {
    const p = planned({ objects: [
      { ref: 'a', object_type: 'document', relations: { seealso: [{ related: 'b' }, { related: 'c' }, { related: 'b' }, { related: 'c' }, { related: 5 }, { related: 5 }] } },
      { ref: 'b', object_type: 'document' },
      { ref: 'c', object_type: 'document' },
    ] })
    expect(checkPlanAgainstStore(p, { typeOfId: new Map([[5, 'document']]), takenNicknames: [], knownCategories: [] })).toEqual([
      'objects.0.relations.seealso: b is related twice', 'objects.0.relations.seealso: c is related twice', 'objects.0.relations.seealso: 5 is related twice',
    ])
  })
})
