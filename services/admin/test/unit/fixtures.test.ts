import { describe, expect, it } from 'vitest'
import { accountUsers, type FixturesError, parseFixtures, refsOf } from '../../src/fixtures.js'

const user = { username: 'cara', password: 'pw-123456' }
const problemsOf = (value: unknown): string[] => {
  try {
    parseFixtures(JSON.stringify(value))
    return []
  } catch (err) {
    return (err as FixturesError).problems
  }
}

describe('parseFixtures', () => {
  it('when the file is valid, then defaults fill the omitted sections', () => {
    expect(parseFixtures('{}')).toEqual({ groups: [], users: [], categories: [], tags: [], objects: [] })
    expect(parseFixtures(JSON.stringify({ groups: [{ name: 'g' }] })).groups).toEqual([{ name: 'g', backend_auth: false }])
  })

  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['an unknown top-level key', '{"people": []}', 'people'],
    ['a user without a password', JSON.stringify({ users: [{ username: 'x' }] }), 'users.0.password'],
    ['a group with an unknown field', JSON.stringify({ groups: [{ name: 'g', admin: true }] }), 'groups.0'],
    ['objects nested 5,000 deep', `{"objects":[${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}]}`, 'nests arrays and objects deeper than 64 levels'],
  ])('when the file has %s, then it is rejected naming it', (_label, text, expected) => {
    let problems: string[] = []
    try { parseFixtures(text) } catch (err) { problems = (err as FixturesError).problems }
    expect(problems.join('\n')).toContain(expected)
  })

  it.each([
    ['a ref to a card of the file', { users: [{ ...user, card: 'c' }], objects: [{ ref: 'c', object_type: 'card' }] }, []],
    ['an object id', { users: [{ ...user, card: 12 }] }, []],
    ['a ref nobody has', { users: [{ ...user, card: 'nope' }] }, ['users.0.card: no object has the ref "nope"']],
    ['a ref to a document', { users: [{ ...user, card: 'd' }], objects: [{ ref: 'd', object_type: 'document' }] }, ['users.0.card: "d" is not an object of type card']],
  ])('a user card naming %s', (_label, file, expected) => {
    expect(problemsOf(file)).toEqual(expected)
  })
})

describe('accountUsers', () => {
  const fixtures = parseFixtures(JSON.stringify({
    users: [{ ...user, card: 'c' }, { ...user, username: 'dan', card: 7 }, { ...user, username: 'eve' }],
    objects: [{ ref: 'c', object_type: 'card' }],
  }))

  it('when refs are not known yet (the dry run), then card refs are left out and ids kept', () => {
    expect(accountUsers(fixtures).map((u) => 'card_id' in u ? u.card_id : undefined)).toEqual([undefined, 7, undefined])
  })

  it('when refs are known, then card refs resolve to ids and no `card` key reaches the auth service', () => {
    const users = accountUsers(fixtures, { c: 41 })
    expect(users.map((u) => 'card_id' in u ? u.card_id : undefined)).toEqual([41, 7, undefined])
    for (const u of users) expect(u).not.toHaveProperty('card')
  })
})

describe('refsOf', () => {
  const objects = [{ ref: 'a' }, { title: 'no ref' }, { ref: 'b' }, { ref: 'c' }]

  it('when the service answers ids in file order, then each goes to the object with a ref at that place', () => {
    expect(refsOf(objects, { refs: {}, ref_ids: [12, 14, 15] })).toEqual({ a: 12, b: 14, c: 15 })
  })

  it('when the service answers the map (one that does not know the compact answer), then the map is taken', () => {
    expect(refsOf(objects, { refs: { a: 12, b: '14', c: 15 }, ref_ids: [] })).toEqual({ a: 12, b: 14, c: 15 })
  })

  it.each([[[12, 14]], [[12, 14, 15, 16]]])('when the ids do not match the refs in number (%j), then it fails instead of pairing them wrongly', (ids) => {
    expect(() => refsOf(objects, { refs: {}, ref_ids: ids })).toThrow(/answered \d ids for the file's 3 refs/)
  })
})
