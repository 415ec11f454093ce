import { describe, expect, it } from 'vitest'
import { importProblems, passwordHashProblem, unknownGroups, userProblems, type UserInput } from '../../src/core/accounts.rules.js'
import { hashPassword } from '../../src/security/passwords.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$OZ6Pd0TYdVmThmRW0nHV8p1mBgNQqE3ZxHdYXBo7ZkM'

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
    // an import from an admin export keeps the argon2id hash instead of a password
    ['a kept argon2id hash', { password: '', passwordHash: HASH }, {}],
    ['a kept hash and a password', { passwordHash: HASH }, { password: 'must be empty when password_hash is given' }],
    ['a bcrypt hash', { password: '', passwordHash: '$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234' }, { password_hash: 'must be an argon2id hash ($argon2id$v=19$m=…,t=…,p=…$salt$hash)' }],
    ['a hash that costs a gigabyte per login', { password: '', passwordHash: HASH.replace('m=19456', 'm=1048576') }, { password_hash: 'has costs out of bounds (m ≤ 262144, t ≤ 10, p ≤ 8)' }],
    ['a hash with a hundred passes', { password: '', passwordHash: HASH.replace('t=2', 't=99') }, { password_hash: 'has costs out of bounds (m ≤ 262144, t ≤ 10, p ≤ 8)' }],
  ])('%s', (_label, extra, expected) => {
    expect(userProblems(user(extra))).toEqual(expected)
  })
})

describe('passwordHashProblem', () => {
  it('takes every hash the service makes', async () => {
    for (const password of ['x', 'a longer password with spaces', 'ünïcødé']) expect(passwordHashProblem(await hashPassword(password))).toBeNull()
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
