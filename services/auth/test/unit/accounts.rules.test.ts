import { describe, expect, it } from 'vitest'
import { importProblems, unknownGroups, userProblems, type UserInput } from '../../src/core/accounts.rules.js'

const user = (extra: Partial<UserInput> = {}): UserInput =>
  ({ username: 'ann', password: 'pw', groups: [], name: '', email: '', cardId: null, ...extra })

describe('userProblems', () => {
  it.each<[string, Partial<UserInput>, Record<string, string>]>([
    ['a valid user', {}, {}],
    ['an empty username', { username: '' }, { username: 'is required' }],
    ['a blank username', { username: '   ' }, { username: 'is required' }],
    ['padded username', { username: ' ann' }, { username: 'must not start or end with spaces' }],
    ['a control character', { username: 'a\nb' }, { username: 'must not contain control characters' }],
    ['a too long username', { username: 'a'.repeat(256) }, { username: 'must be at most 255 characters' }],
    ['an empty password', { password: '' }, { password: 'is required' }],
    ['a huge password', { password: 'p'.repeat(1025) }, { password: 'must be at most 1024 characters' }],
    ['a zero card id', { cardId: 0 }, { card_id: 'must be a positive integer' }],
  ])('%s', (_label, extra, expected) => {
    expect(userProblems(user(extra))).toEqual(expected)
  })
})

describe('unknownGroups', () => {
  it.each<[string[], string[], string[]]>([
    [[], ['a'], []],
    [['a', 'b'], ['a'], ['b']],
    [['z', 'b', 'z'], [], ['b', 'z']],
  ])('%j against %j → %j', (groups, known, expected) => {
    expect(unknownGroups(groups, new Set(known))).toEqual(expected)
  })
})

describe('importProblems', () => {
  const existing = { groups: new Set(['editor']), usernames: new Set(['old']) }
  it.each<[string, Parameters<typeof importProblems>[0], string[]]>([
    ['a clean import', { groups: [{ name: 'new', backendAuth: false }], users: [user({ groups: ['new', 'editor'] })] }, []],
    ['an existing group again', { groups: [{ name: 'editor', backendAuth: true }], users: [] }, []],
    ['a group twice', { groups: [{ name: 'g', backendAuth: false }, { name: 'g', backendAuth: true }], users: [] }, ['groups[1].name']],
    ['an empty group name', { groups: [{ name: '', backendAuth: false }], users: [] }, ['groups[0].name']],
    ['an existing username', { groups: [], users: [user({ username: 'old' })] }, ['users[0].username']],
    ['a username twice', { groups: [], users: [user(), user()] }, ['users[1].username']],
    ['an unknown group', { groups: [], users: [user({ groups: ['gone'] })] }, ['users[0].groups']],
    ['several at once', { groups: [], users: [user({ password: '', groups: ['gone'] })] }, ['users[0].password', 'users[0].groups']],
  ])('%s', (_label, input, fields) => {
    expect(Object.keys(importProblems(input, existing)).sort()).toEqual([...fields].sort())
  })
})
