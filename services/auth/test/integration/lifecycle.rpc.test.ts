import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeJwt } from 'jose'
import { TEST_ADMINISTRATOR } from '@content/platform/testing'
import { rpcError } from '../helpers/rpc.js'
import { startStack, type Stack } from '../helpers/stack.js'
import { must } from '../helpers/must.js'

// Accounts over their whole life, and API keys, as the admin tool drives them (every call here acts
// for an administrator; the gateway's own calls are Login, Refresh and ExchangeApiKey).
describe('account lifecycle and API keys over gRPC', () => {
  let s: Stack
  const user = (username: string, groups: string[]) => ({ username, password: `pw-${username}-long`, groups, name: '', email: '' })
  const login = (username: string, password = `pw-${username}-long`) => s.client.Login({ username, password, client_address: '127.0.0.1' })

  beforeEach(async () => {
    s = await startStack()
    await s.accounts.groups.create({ name: 'administrator', backendAuth: true })
    await s.accounts.groups.create({ name: 'editor', backendAuth: true })
  })
  afterEach(async () => { await s.stop() })

  it('lists users; a new password works at once, the old one no longer, and logins made before it cannot refresh', async () => {
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    expect((await s.client.ListUsers({})).users.map((u) => u.username)).toEqual(['bob'])
    const before = await login('bob')
    s.clock.advance(1_000)
    await s.client.SetPassword({ user_id: bob.id, password: 'a-brand-new-password' })
    expect((await rpcError(login('bob'))).reason).toBe('LOGIN_FAILED')
    const after = await login('bob', 'a-brand-new-password')
    expect((await rpcError(s.client.Refresh({ refresh_token: before.refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
    await s.client.Refresh({ refresh_token: after.refresh_token })
    expect((await rpcError(s.client.SetPassword({ user_id: bob.id, password: '' })))).toMatchObject({ reason: 'VALIDATION_FAILED', details: { password: 'is required' } })
    expect((await rpcError(s.client.SetPassword({ user_id: 999, password: 'x-long-enough' }))).reason).toBe('USER_NOT_FOUND')
  })

  it('a disabled user can neither log in nor refresh, and is back after enabling (with a new login)', async () => {
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    const before = await login('bob')
    s.clock.advance(1_000)
    expect(await s.client.SetDisabled({ user_id: bob.id, disabled: true })).toMatchObject({ username: 'bob', disabled: true })
    expect((await rpcError(login('bob'))).reason).toBe('LOGIN_FAILED')
    expect(await s.client.SetDisabled({ user_id: bob.id, disabled: false })).toMatchObject({ disabled: false })
    expect((await rpcError(s.client.Refresh({ refresh_token: before.refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
    await login('bob')
  })

  it('a deleted user is gone with its logins and keys; the last enabled administrator can be neither disabled nor deleted', async () => {
    const admin = await s.client.CreateUser(user('root', ['administrator']))
    const bob = await s.client.CreateUser(user('bob', ['editor']))
    const session = await login('bob')
    const { secret } = await s.client.CreateApiKey({ name: 'ci', groups: ['editor'], expires_at: 0, user_id: bob.id })
    await s.client.DeleteUser({ user_id: bob.id })
    expect((await rpcError(s.client.Refresh({ refresh_token: session.refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
    expect((await rpcError(s.client.ExchangeApiKey({ secret }))).reason).toBe('TOKEN_INVALID')
    expect((await s.client.ListApiKeys({})).keys).toEqual([])
    expect((await rpcError(s.client.DeleteUser({ user_id: bob.id }))).reason).toBe('USER_NOT_FOUND')
    // one call at a time: a second call started early would reject before anything awaits it
    for (const attempt of [() => s.client.DeleteUser({ user_id: admin.id }), () => s.client.SetDisabled({ user_id: admin.id, disabled: true })]) {
      expect(await rpcError(attempt())).toMatchObject({ status: 'FAILED_PRECONDITION', reason: 'LAST_ADMINISTRATOR' })
    }
    await s.client.CreateUser(user('second', ['administrator']))
    await s.client.SetDisabled({ user_id: admin.id, disabled: true })
  })

  it('an API key is shown once, stored hashed, listed, exchanged for a short-lived token of its groups, and revocable', async () => {
    const owner = await s.client.CreateUser(user('ci-owner', ['administrator']))
    const created = await s.client.CreateApiKey({ name: 'ci', groups: ['editor'], expires_at: s.clock.now() + 3_600_000, user_id: owner.id })
    expect(created.secret).toMatch(/^ck_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)
    expect(created.key).toMatchObject({ name: 'ci', groups: ['editor'], user_id: owner.id, last_used: 0 })
    const stored = await s.accounts.apiKeys.get(must(created.key).id)
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(20))
    const token = await s.client.ExchangeApiKey({ secret: created.secret })
    expect(token.expires_in).toBe(600)
    expect(decodeJwt(token.access_token)).toMatchObject({ id: owner.id, groups: ['editor'], backend_auth: true })
    const [listed] = (await s.client.ListApiKeys({})).keys
    expect(listed).toMatchObject({ id: must(created.key).id, name: 'ci' })
    expect(Number(must(listed).last_used)).toBeGreaterThan(0)
    const wrong = `${created.secret.slice(0, -1)}${created.secret.endsWith('A') ? 'B' : 'A'}`
    for (const secret of [wrong, 'ck_nonsense', '', `${created.secret}x`]) expect((await rpcError(s.client.ExchangeApiKey({ secret }))).reason).toBe('TOKEN_INVALID')
    await s.client.RevokeApiKey({ id: must(created.key).id })
    expect((await rpcError(s.client.ExchangeApiKey({ secret: created.secret }))).reason).toBe('TOKEN_INVALID')
    expect((await rpcError(s.client.RevokeApiKey({ id: must(created.key).id }))).reason).toBe('API_KEY_NOT_FOUND')
  })

  it('a key runs out at its expiry, its token never outlives it, and a disabled owner stops it', async () => {
    const owner = await s.client.CreateUser(user('owner', ['editor']))
    const { secret } = await s.client.CreateApiKey({ name: 'short', groups: [], expires_at: s.clock.now() + 90_000, user_id: owner.id })
    expect((await s.client.ExchangeApiKey({ secret })).expires_in).toBeOneOf([89, 90])
    await s.client.SetDisabled({ user_id: owner.id, disabled: true })
    expect((await rpcError(s.client.ExchangeApiKey({ secret }))).reason).toBe('TOKEN_INVALID')
    await s.client.SetDisabled({ user_id: owner.id, disabled: false })
    s.clock.advance(90_000)
    expect((await rpcError(s.client.ExchangeApiKey({ secret }))).reason).toBe('TOKEN_INVALID')
    expect((await rpcError(s.client.CreateApiKey({ name: 'old', groups: [], expires_at: s.clock.now() - 1, user_id: owner.id }))).reason).toBe('VALIDATION_FAILED')
    expect(await rpcError(s.client.CreateApiKey({ name: 'x', groups: ['ghosts'], expires_at: 0, user_id: owner.id }))).toMatchObject({ details: { groups: 'unknown groups: ghosts' } })
    expect((await rpcError(s.client.CreateApiKey({ name: ' ', groups: [], expires_at: 0, user_id: owner.id }))).reason).toBe('VALIDATION_FAILED')
  })

  it('a key made without an owner belongs to the administrator who made it', async () => {
    await s.client.CreateUser(user('root', ['administrator']))
    const created = await s.client.CreateApiKey({ name: 'mine', groups: [], expires_at: 0, user_id: 0 })
    expect(must(created.key).user_id).toBe(TEST_ADMINISTRATOR.user_id)
  })
})
