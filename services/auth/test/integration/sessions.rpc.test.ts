import { createHash } from 'node:crypto'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { hashPassword } from '../../src/security/passwords.js'
import { createClient } from '@content/platform'
import { testIdentity } from '@content/platform/testing'
import { loadContentProtos, type v1 } from '@content/protos'
import { rpcError } from '../helpers/rpc.js'
import { startStack, TEST_SECRET, type Stack, type StackOptions } from '../helpers/stack.js'
import { must } from '../helpers/must.js'

const DAY = 86_400_000
const key = new TextEncoder().encode(TEST_SECRET)
let stack: Stack | undefined

afterEach(async () => { await stack?.stop(); stack = undefined })

async function setup (options: StackOptions = {}) {
  stack = await startStack(options)
  await stack.accounts.groups.create({ name: 'editor', backendAuth: true })
  for (const username of ['alice', 'bob']) {
    await stack.accounts.users.create({ username, passwordHash: await hashPassword(`${username}-pw`), name: '', email: '', groups: ['editor'], cardId: null })
  }
  return stack
}
const login = (s: Stack, username = 'alice', password = `${username}-pw`, client_address = '10.0.0.1') =>
  s.client.Login({ username, password, client_address })

describe('Login', () => {
  it('issues a signed access token with the agreed claims and an opaque refresh token', async () => {
    const s = await setup()
    const before = Math.floor(Date.now() / 1000)
    const pair = await login(s)
    expect(pair.expires_in).toBe(600)
    expect(decodeProtectedHeader(pair.access_token)).toEqual({ alg: 'HS256', typ: 'JWT' })
    const { payload } = await jwtVerify(pair.access_token, key, { algorithms: ['HS256'], issuer: 'content-objects' })
    const alice = await s.accounts.users.findByUsername('alice')
    expect(payload).toMatchObject({ sub: String(must(alice).id), id: must(alice).id, groups: ['editor'] })
    expect(payload.iat).toBeGreaterThanOrEqual(before)
    expect(must(payload.exp) - must(payload.iat)).toBe(600)
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/)
    expect(pair.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect((await login(s)).refresh_token).not.toBe(pair.refresh_token)
  })

  it('says in the backend_auth claim whether one of the user\'s groups may write', async () => {
    const s = await setup()
    await s.accounts.groups.create({ name: 'readers', backendAuth: false })
    await s.accounts.users.create({ username: 'rita', passwordHash: await hashPassword('rita-pw'), name: '', email: '', groups: ['readers'], cardId: null })
    const writer = await jwtVerify((await login(s)).access_token, key)
    const reader = await jwtVerify((await login(s, 'rita')).access_token, key)
    expect(writer.payload.backend_auth).toBe(true)
    expect(reader.payload.backend_auth).toBe(false)
  })

  it('stores only the SHA-256 of the refresh token', async () => {
    const s = await setup()
    const { refresh_token } = await login(s)
    const dump = JSON.stringify(s.db.prepare('SELECT * FROM refresh_tokens').all())
    expect(dump).not.toContain(refresh_token)
    expect(dump).toContain(createHash('sha256').update(refresh_token).digest('base64url'))
  })

  it('honours JWT_ALGORITHM, JWT_ISSUER and ACCESS_TOKEN_TTL', async () => {
    const s = await setup({ env: { JWT_ALGORITHM: 'HS512', JWT_ISSUER: 'elsewhere', ACCESS_TOKEN_TTL: '60' } })
    const pair = await login(s)
    expect(pair.expires_in).toBe(60)
    expect(decodeProtectedHeader(pair.access_token).alg).toBe('HS512')
    const { payload } = await jwtVerify(pair.access_token, key, { algorithms: ['HS512'], issuer: 'elsewhere' })
    expect(must(payload.exp) - must(payload.iat)).toBe(60)
    await expect(jwtVerify(pair.access_token, key, { algorithms: ['HS256'] })).rejects.toThrow()
  })

  it('answers one UNAUTHENTICATED/LOGIN_FAILED whatever the cause', async () => {
    const s = await setup()
    await s.accounts.users.setDisabled(must((await s.accounts.users.findByUsername('bob'))).id, true, Date.now())
    const errors = [
      await rpcError(login(s, 'nobody', 'whatever')),
      await rpcError(login(s, 'alice', 'wrong')),
      await rpcError(login(s, 'bob')),
      await rpcError(login(s, '', '')),
    ]
    for (const err of errors) expect(err).toMatchObject({ status: 'UNAUTHENTICATED', reason: 'LOGIN_FAILED', message: must(errors[0]).message })
  })

  it('takes about as long for an unknown user as for a wrong password', async () => {
    const s = await setup()
    const median = async (username: string) => {
      const times: number[] = []
      for (let i = 0; i < 5; i++) {
        const started = performance.now()
        await rpcError(login(s, username, 'wrong', `timing-${username}-${i}`))
        times.push(performance.now() - started)
      }
      return must(times.sort((a, b) => a - b)[2])
    }
    // without the dummy verification an unknown user answers in ~1 ms against tens of ms for a hash
    expect(await median('nobody')).toBeGreaterThan((await median('alice')) * 0.3)
  })

  it('limits repeated failures per client and username with RESOURCE_EXHAUSTED/TOO_MANY_REQUESTS and retry_after', async () => {
    const s = await setup({ env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '120' } })
    for (let i = 0; i < 3; i++) expect((await rpcError(login(s, 'alice', 'wrong'))).reason).toBe('LOGIN_FAILED')
    const limited = await rpcError(login(s))
    expect(limited).toMatchObject({ status: 'RESOURCE_EXHAUSTED', reason: 'TOO_MANY_REQUESTS', details: { retry_after: 120 } })
    // another address, another username: unaffected
    await login(s, 'alice', 'alice-pw', '10.0.0.2')
    await login(s, 'bob')
    // a success clears the count
    for (let i = 0; i < 2; i++) await rpcError(login(s, 'bob', 'wrong'))
    await login(s, 'bob')
    for (let i = 0; i < 2; i++) expect((await rpcError(login(s, 'bob', 'wrong'))).reason).toBe('LOGIN_FAILED')
  })

  it('lets a locked client in again once the window its first failure opened has passed', async () => {
    const s = await setup({ env: { LOGIN_MAX_FAILURES: '1', LOGIN_FAILURE_WINDOW: '1' } })
    expect((await rpcError(login(s, 'alice', 'wrong'))).reason).toBe('LOGIN_FAILED')
    expect(await rpcError(login(s))).toMatchObject({ reason: 'TOO_MANY_REQUESTS', details: { retry_after: 1 } })
    await new Promise((r) => setTimeout(r, 1_100))
    await login(s)
  })

  it('believes a client address only from the gateway: another service\'s failures all count against that service', async () => {
    const s = await setup({ env: { LOGIN_MAX_FAILURES: '3' } })
    const poster = createClient<v1.AuthServiceDefinition>(loadContentProtos().content.v1.AuthService, s.address, { timeoutMs: 5_000, identity: testIdentity('poster').identity })
    try {
      for (let i = 0; i < 3; i++) {
        expect((await rpcError(poster.Login({ username: 'alice', password: 'wrong', client_address: `10.9.0.${i}` }))).reason).toBe('LOGIN_FAILED')
      }
      expect(await rpcError(poster.Login({ username: 'alice', password: 'alice-pw', client_address: '10.9.0.99' }))).toMatchObject({ reason: 'TOO_MANY_REQUESTS' })
      await login(s, 'alice', 'alice-pw', '10.9.0.99') // the gateway's clients are counted by the address it saw
    } finally {
      poster.close()
    }
  })
})

describe('Refresh', () => {
  it('rotates: a new access token and a new refresh token; the old one works only within the grace window', async () => {
    const s = await setup()
    const first = await login(s)
    const second = await s.client.Refresh({ refresh_token: first.refresh_token })
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(second.access_token).not.toBe(first.access_token)
    await jwtVerify(second.access_token, key, { algorithms: ['HS256'], issuer: 'content-objects' })
    // a second tab, within the grace window: a fresh access token and the same successor
    s.clock.advance(9_000)
    const tab = await s.client.Refresh({ refresh_token: first.refresh_token })
    expect(tab.refresh_token).toBe(second.refresh_token)
    expect(tab.access_token).not.toBe(second.access_token)
    // after it: theft; the whole family dies, successor included
    s.clock.advance(2_000)
    expect(await rpcError(s.client.Refresh({ refresh_token: first.refresh_token }))).toMatchObject({ status: 'UNAUTHENTICATED', reason: 'REFRESH_TOKEN_INVALID' })
    expect((await rpcError(s.client.Refresh({ refresh_token: second.refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
  })

  it('gives two concurrent renewals of one token the same successor', async () => {
    const s = await setup()
    const { refresh_token } = await login(s)
    const results = await Promise.all([1, 2, 3].map(() => s.client.Refresh({ refresh_token })))
    expect(new Set(results.map((r) => r.refresh_token)).size).toBe(1)
    expect(must(results[0]).refresh_token).not.toBe(refresh_token)
  })

  it('leaves other login families alone when one is revoked for reuse', async () => {
    const s = await setup()
    const a = await login(s)
    const b = await login(s)
    await s.client.Refresh({ refresh_token: a.refresh_token })
    s.clock.advance(11_000)
    await rpcError(s.client.Refresh({ refresh_token: a.refresh_token }))
    expect((await s.client.Refresh({ refresh_token: b.refresh_token })).refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('keeps the same refresh token with REFRESH_ROTATION=false, sliding its expiry on each use', async () => {
    const s = await setup({ env: { REFRESH_ROTATION: 'false' } })
    const { refresh_token } = await login(s)
    for (let i = 0; i < 3; i++) {
      s.clock.advance(20 * DAY)
      expect((await s.client.Refresh({ refresh_token })).refresh_token).toBe(refresh_token)
    }
    s.clock.advance(30 * DAY + 1)
    expect((await rpcError(s.client.Refresh({ refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
  })

  it('expires refresh tokens after REFRESH_TOKEN_TTL without use', async () => {
    const s = await setup({ env: { REFRESH_TOKEN_TTL: '3600' } })
    const { refresh_token } = await login(s)
    s.clock.advance(3_600_001)
    expect((await rpcError(s.client.Refresh({ refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
  })

  it.each([['unknown', 'A'.repeat(43)], ['malformed', 'not a token'], ['empty', '']])('refuses a %s token', async (_label, refresh_token) => {
    const s = await setup()
    expect(await rpcError(s.client.Refresh({ refresh_token }))).toMatchObject({ status: 'UNAUTHENTICATED', reason: 'REFRESH_TOKEN_INVALID' })
  })

  it('refuses the token of a user disabled since login', async () => {
    const s = await setup()
    const { refresh_token } = await login(s)
    await s.accounts.users.setDisabled(must((await s.accounts.users.findByUsername('alice'))).id, true, Date.now())
    expect((await rpcError(s.client.Refresh({ refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
  })
})

describe('Revoke', () => {
  const caller = async (s: Stack, username: string) => ({ user_id: must((await s.accounts.users.findByUsername(username))).id, groups: ['editor'] })

  it('revokes the caller\'s token: Refresh then fails, a second Revoke is NOT_FOUND', async () => {
    const s = await setup()
    const { refresh_token } = await login(s)
    expect(await s.client.Revoke({ caller: await caller(s, 'alice'), refresh_token })).toEqual({})
    expect((await rpcError(s.client.Refresh({ refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
    expect(await rpcError(s.client.Revoke({ caller: await caller(s, 'alice'), refresh_token })))
      .toMatchObject({ status: 'NOT_FOUND', reason: 'REFRESH_TOKEN_NOT_FOUND' })
  })

  it('also ends the grace path of the token it replaced', async () => {
    const s = await setup()
    const first = await login(s)
    const second = await s.client.Refresh({ refresh_token: first.refresh_token })
    await s.client.Revoke({ caller: await caller(s, 'alice'), refresh_token: second.refresh_token })
    expect((await rpcError(s.client.Refresh({ refresh_token: first.refresh_token }))).reason).toBe('REFRESH_TOKEN_INVALID')
  })

  it.each([
    ['unknown', () => 'A'.repeat(43)],
    ['malformed', () => 'nope'],
  ])('answers NOT_FOUND/REFRESH_TOKEN_NOT_FOUND for an %s token', async (_label, token) => {
    const s = await setup()
    expect(await rpcError(s.client.Revoke({ caller: await caller(s, 'alice'), refresh_token: token() })))
      .toMatchObject({ status: 'NOT_FOUND', reason: 'REFRESH_TOKEN_NOT_FOUND' })
  })

  it('answers NOT_FOUND for another user\'s token and leaves it working', async () => {
    const s = await setup()
    const { refresh_token } = await login(s, 'alice')
    expect((await rpcError(s.client.Revoke({ caller: await caller(s, 'bob'), refresh_token }))).reason).toBe('REFRESH_TOKEN_NOT_FOUND')
    expect((await rpcError(s.client.Revoke({ refresh_token }))).reason).toBe('REFRESH_TOKEN_NOT_FOUND')
    await s.client.Refresh({ refresh_token })
  })
})
