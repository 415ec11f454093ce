import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { userTokenFor } from '@content/platform/testing'
import { verifyPassword } from '../../src/security/passwords.js'
import type { AccountsStore } from '../../src/store/accounts.store.js'
import { rpcError, type AuthClient } from '../helpers/rpc.js'
import { startStack } from '../helpers/stack.js'
import { must } from '../helpers/must.js'

describe('admin RPCs over gRPC', () => {
  let accounts: AccountsStore
  let client: AuthClient
  let stop: () => Promise<void>

  beforeEach(async () => {
    ;({ client, accounts, stop } = await startStack())
    await accounts.groups.create({ name: 'editor', backendAuth: true })
  })
  afterEach(async () => { await stop() })

  const newUser = (username: string, extra: object = {}) =>
    ({ username, password: `pw-${username}`, groups: ['editor'], name: 'N', email: 'e@x.org', ...extra })

  it('CreateUser answers the user without its password and stores an argon2id hash', async () => {
    const user = await client.CreateUser(newUser('alice', { card_id: 7 }))
    expect(user).toMatchObject({ username: 'alice', groups: ['editor'], name: 'N', email: 'e@x.org', card_id: 7, disabled: false })
    expect(user.id).toBeGreaterThan(0)
    expect(user.created).toBeGreaterThan(Date.now() - 60_000)
    expect(JSON.stringify(user)).not.toContain('pw-alice')
    const stored = await accounts.users.findByUsername('alice')
    expect(stored?.passwordHash.startsWith('$argon2id$')).toBe(true)
    expect(await verifyPassword(must(stored).passwordHash, 'pw-alice')).toBe(true)
  })

  it('CreateUser without card_id leaves it absent', async () => {
    const user = await client.CreateUser(newUser('nocard'))
    expect(user.card_id).toBeUndefined()
  })

  it.each([
    ['a taken username', newUser('taken'), 'ALREADY_EXISTS', 'USER_EXISTS'],
    ['an unknown group', newUser('u1', { groups: ['ghosts'] }), 'INVALID_ARGUMENT', 'VALIDATION_FAILED'],
    ['an empty username', newUser(''), 'INVALID_ARGUMENT', 'VALIDATION_FAILED'],
    ['an empty password', newUser('u2', { password: '' }), 'INVALID_ARGUMENT', 'VALIDATION_FAILED'],
  ])('CreateUser refuses %s', async (_label, request, status, reason) => {
    await client.CreateUser(newUser('taken'))
    const err = await rpcError(client.CreateUser(request))
    expect(err).toMatchObject({ status, reason })
  })

  it('CreateUser names the unknown groups in the details', async () => {
    const err = await rpcError(client.CreateUser(newUser('u3', { groups: ['editor', 'ghosts', 'aliens'] })))
    expect(err.details).toEqual({ groups: 'unknown groups: aliens, ghosts' })
  })

  it('CreateGroup, ALREADY_EXISTS/GROUP_EXISTS, ListGroups', async () => {
    expect(await client.CreateGroup({ name: 'authors', backend_auth: false })).toEqual({ name: 'authors', backend_auth: false })
    expect(await rpcError(client.CreateGroup({ name: 'editor', backend_auth: true }))).toMatchObject({ status: 'ALREADY_EXISTS', reason: 'GROUP_EXISTS' })
    expect(await rpcError(client.CreateGroup({ name: ' ', backend_auth: true }))).toMatchObject({ status: 'INVALID_ARGUMENT', reason: 'VALIDATION_FAILED' })
    expect(await client.ListGroups({})).toEqual({ groups: [{ name: 'authors', backend_auth: false }, { name: 'editor', backend_auth: true }] })
  })

  it('GetUser finds a user and answers NOT_FOUND/USER_NOT_FOUND otherwise', async () => {
    const created = await client.CreateUser(newUser('gus'))
    expect(await client.GetUser({ user_id: created.id })).toEqual(created)
    expect(await rpcError(client.GetUser({ user_id: 424242 }))).toMatchObject({ status: 'NOT_FOUND', reason: 'USER_NOT_FOUND' })
    expect(await rpcError(client.GetUser({ user_id: 0 }))).toMatchObject({ status: 'NOT_FOUND', reason: 'USER_NOT_FOUND' })
  })

  it('GetUser answers a user only its own account; administration needs an administrator', async () => {
    const gus = await client.CreateUser(newUser('gus'))
    const other = await client.CreateUser(newUser('ida'))
    const asGus = { userToken: await userTokenFor({ user_id: Number(gus.id), groups: ['editor'] }) }
    expect(await client.GetUser({ user_id: gus.id }, asGus)).toEqual(gus)
    expect(await rpcError(client.GetUser({ user_id: other.id }, asGus))).toMatchObject({ status: 'PERMISSION_DENIED' })
    expect(await rpcError(client.CreateUser(newUser('eve', { groups: ['administrator'] }), asGus)))
      .toMatchObject({ status: 'PERMISSION_DENIED', reason: 'ADMINISTRATOR_REQUIRED' })
    expect(await rpcError(client.ListGroups({}, { userToken: 'not-a-token' }))).toMatchObject({ status: 'UNAUTHENTICATED', reason: 'TOKEN_INVALID' })
  })

  describe('ImportAccounts', () => {
    const request = {
      groups: [{ name: 'editor', backend_auth: true }, { name: 'authors', backend_auth: false }],
      users: [newUser('ann', { groups: ['authors', 'editor'] }), newUser('ben', { groups: [] })],
    }

    it('imports new and existing groups and users, answering username → id', async () => {
      const { user_ids } = await client.ImportAccounts({ ...request, dry_run: false })
      expect(Object.keys(user_ids).sort()).toEqual(['ann', 'ben'])
      expect((await client.GetUser({ user_id: must(user_ids.ann) })).groups).toEqual(['authors', 'editor'])
      expect(await verifyPassword(must((await accounts.users.findByUsername('ben'))).passwordHash, 'pw-ben')).toBe(true)
    })

    it('dry_run validates and writes nothing', async () => {
      expect(await client.ImportAccounts({ ...request, dry_run: true })).toEqual({ user_ids: {} })
      expect(await accounts.users.count()).toBe(0)
      expect((await client.ListGroups({})).groups.map((g) => g.name)).toEqual(['editor'])
    })

    it.each([
      ['an existing username', [newUser('old')], 'users[0].username'],
      ['a username twice', [newUser('dup'), newUser('dup')], 'users[1].username'],
      ['a group that will not exist', [newUser('x', { groups: ['nowhere'] })], 'users[0].groups'],
      ['an empty password', [newUser('y', { password: '' })], 'users[0].password'],
    ])('refuses %s with FIXTURES_INVALID and writes nothing, dry run or not', async (_label, users, field) => {
      await client.CreateUser(newUser('old'))
      for (const dry_run of [true, false]) {
        const err = await rpcError(client.ImportAccounts({ groups: [{ name: 'fresh', backend_auth: false }], users, dry_run }))
        expect(err).toMatchObject({ status: 'INVALID_ARGUMENT', reason: 'FIXTURES_INVALID' })
        expect(Object.keys(err.details as object)).toContain(field)
      }
      expect(await accounts.users.count()).toBe(1)
      expect((await client.ListGroups({})).groups.map((g) => g.name)).toEqual(['editor'])
    })
  })
})
