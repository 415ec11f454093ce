import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USERS } from './support/reads-fixtures.js'
import { expectError, login, startSeeded, type SeededSystem } from './support/seeded.js'
import { ADMIN, http, removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

const SECRET = 'system-test-secret-0123456789-abcdefghij'
const OTHER_SECRET = 'another-secret-for-the-restart-0123456789'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** An access token as the auth service would mint it, with overrides. */
async function mint (claims: Record<string, unknown> = {}, options: { secret?: string, alg?: string, issuer?: string, exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ id: 2, groups: ['members'], ...claims })
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .setIssuer(options.issuer ?? 'content-objects').setSubject(String(claims.id ?? 2)).setIssuedAt(now - 5)
    .setExpirationTime(options.exp ?? now + 600).setJti(`t-${Math.random()}`)
    .sign(new TextEncoder().encode(options.secret ?? SECRET))
}

describe('authentication as a client sees it', () => {
  let s: SeededSystem
  let base: string
  /** every secret a client handled: none may appear in the logs */
  const secrets = new Set<string>()
  const post = async (body: unknown, headers: Record<string, string> = {}) => http(base, 'POST', '/auth', { body, headers })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const refresh = async (token: string) => post({ grant_type: 'refresh_token', refresh_token: token })
  async function session (user: { username: string, password: string } = USERS.member) {
    const data = await login(base, user.username, user.password)
    secrets.add(data.access_token).add(data.refresh_token).add(user.password)
    return data
  }

  beforeAll(async () => {
    s = await startSeeded({ JWT_SECRET: SECRET, REFRESH_REUSE_GRACE_SECONDS: '1', LOG_LEVEL: 'debug' })
    base = s.system.base
    for (const t of Object.values(s.tokens)) secrets.add(t)
    for (const u of [...Object.values(USERS), ADMIN]) secrets.add(u.password)
  })
  afterAll(async () => { await s?.stop() })

  it('password grant, with grant_type omitted or "password": token data of spec 2.12 and a JWT of decisions §6', async () => {
    for (const grant of [{}, { grant_type: 'password' }]) {
      const res = await post({ username: USERS.member.username, password: USERS.member.password, ...grant })
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.body).toMatchObject({ api: 'auth', method: 'post', url: `${base}/auth`, params: [] })
      const data = res.body.data
      expect(Object.keys(data).sort()).toEqual(['access_token', 'expires_in', 'refresh_token'])
      expect(data.expires_in).toBe(600)
      expect(typeof data.refresh_token).toBe('string')
      secrets.add(data.access_token).add(data.refresh_token)
      expect(decodeProtectedHeader(data.access_token)).toEqual({ alg: 'HS256', typ: 'JWT' })
      const claims = decodeJwt(data.access_token)
      expect(claims).toMatchObject({ iss: 'content-objects', sub: '2', id: 2, groups: ['members'] })
      expect(must(claims.exp) - must(claims.iat)).toBe(600)
      expect(typeof claims.jti).toBe('string')
    }
  })

  it('a malformed login is 400: missing or non-string fields, unknown grant_type, huge strings, bodies that are not objects', async () => {
    const u = USERS.member
    const cases: [unknown, string][] = [
      [{ password: u.password }, 'MISSING_PARAMETER'], [{ username: u.username }, 'MISSING_PARAMETER'], [{}, 'MISSING_PARAMETER'],
      [{ username: u.username, password: '' }, 'MISSING_PARAMETER'], [{ username: 42, password: u.password }, 'INVALID_PARAMETER'],
      [{ username: u.username, password: ['x'] }, 'INVALID_PARAMETER'], [{ username: { $ne: 1 }, password: u.password }, 'INVALID_PARAMETER'],
      [{ username: u.username, password: true }, 'INVALID_PARAMETER'], [{ username: u.username, password: u.password, grant_type: 'client_credentials' }, 'INVALID_PARAMETER'],
      [{ username: u.username, password: u.password, grant_type: 7 }, 'INVALID_PARAMETER'], [{ grant_type: 'refresh_token' }, 'MISSING_PARAMETER'],
      [{ grant_type: 'refresh_token', refresh_token: 12 }, 'INVALID_PARAMETER'], [{ username: 'x'.repeat(200_000), password: 'y' }, 'INVALID_PARAMETER'],
      [{ username: u.username, password: 'p'.repeat(200_000) }, 'INVALID_PARAMETER'], [{ grant_type: 'refresh_token', refresh_token: 'r'.repeat(200_000) }, 'INVALID_PARAMETER'],
      [[], 'MISSING_PARAMETER'], ['text', 'MISSING_PARAMETER'], [null, 'MISSING_PARAMETER'],
    ]
    for (const [body, code] of cases) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.error.code, JSON.stringify(body).slice(0, 80)).toBe(code)
    }
    expectError(await http(base, 'POST', '/auth', { raw: '{"username":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON')
    expectError(await http(base, 'POST', '/auth', { raw: '', headers: { 'content-type': 'application/json' } }), 400, 'MISSING_PARAMETER')
  })

  it('one 401 LOGIN_FAILED for an unknown user and a wrong password', async () => {
    const unknown = await post({ username: 'nobody-here', password: 'whatever-it-is' })
    const wrong = await post({ username: USERS.editor.username, password: 'not-the-password' })
    expectError(unknown, 401, 'LOGIN_FAILED')
    expectError(wrong, 401, 'LOGIN_FAILED')
    expect(wrong.body.error.message).toBe(unknown.body.error.message)
    expect(wrong.body.error.details).toEqual(unknown.body.error.details)
  })

  it('repeated failures for one username answer 429 with Retry-After, even with the right password; others still log in', async () => {
    const target = USERS.outsider
    let res: Reply | undefined
    for (let i = 0; i < 8 && res?.status !== 429; i++) res = await post({ username: target.username, password: `wrong-${i}` })
    expectError(must(res), 429, 'TOO_MANY_REQUESTS')
    expect(Number(must(res).headers.get('retry-after'))).toBeGreaterThan(0)
    expectError(await post({ username: target.username, password: target.password }), 429, 'TOO_MANY_REQUESTS')
    await session(USERS.editor)
  })

  it('the token reads protected objects from the header or ?access_token=, and the header wins', async () => {
    const { access_token: token } = await session()
    expect((await http(base, 'GET', '/objects/members-only', { headers: bearer(token) })).status).toBe(200)
    expect((await http(base, 'GET', `/objects/members-only?access_token=${token}`)).status).toBe(200)
    expect((await http(base, 'GET', '/objects/members-only?access_token=garbage', { headers: bearer(token) })).status).toBe(200)
    expectError(await http(base, 'GET', `/objects/members-only?access_token=${token}`, { headers: bearer('garbage') }), 401, 'TOKEN_INVALID')
    expectError(await http(base, 'GET', `/objects/members-only?access_token=${s.tokens.outsider}`, { headers: bearer(s.tokens.outsider) }), 403, 'PERMISSION_DENIED')
    expectError(await http(base, 'GET', '/objects/members-only', { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }), 401, 'TOKEN_INVALID')
  })

  it('GET /auth answers the token and the seconds remaining, counting down; 401 without a token', async () => {
    const { access_token: token } = await session()
    const first = await http(base, 'GET', '/auth', { headers: bearer(token) })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({ access_token: token, expires_in: expect.any(Number) })
    expect(first.body.data.expires_in).toBeLessThanOrEqual(600)
    expect(first.body.data.expires_in).toBeGreaterThan(590)
    await sleep(2100)
    const later = await http(base, 'GET', `/auth?access_token=${token}`)
    expect(later.body.data.expires_in).toBeLessThan(first.body.data.expires_in)
    expect(later.body.params).toEqual([])
    expectError(await http(base, 'GET', '/auth'), 401, 'AUTHENTICATION_REQUIRED')
    expectError(await http(base, 'GET', '/auth', { headers: bearer('x.y.z') }), 401, 'TOKEN_INVALID')
  })

  it('refresh rotates: a new pair; the old token still works inside the grace window and after it revokes the whole family', async () => {
    const first = await session()
    const renewed = await refresh(first.refresh_token)
    expect(renewed.status).toBe(200)
    expect(Object.keys(renewed.body.data).sort()).toEqual(['access_token', 'expires_in', 'refresh_token'])
    secrets.add(renewed.body.data.access_token).add(renewed.body.data.refresh_token)
    expect(renewed.body.data.refresh_token).not.toBe(first.refresh_token)
    expect(decodeJwt(renewed.body.data.access_token)).toMatchObject({ id: 2, groups: ['members'] })
    const racing = await refresh(first.refresh_token) // a second tab, inside the 1 s window
    expect(racing.status).toBe(200)
    secrets.add(racing.body.data.access_token).add(racing.body.data.refresh_token)
    const newest = await refresh(renewed.body.data.refresh_token)
    expect(newest.status).toBe(200)
    secrets.add(newest.body.data.access_token).add(newest.body.data.refresh_token)

    await sleep(1600)
    expectError(await refresh(first.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    expectError(await refresh(newest.body.data.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    expectError(await refresh(racing.body.data.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    expectError(await refresh('not-a-refresh-token'), 401, 'REFRESH_TOKEN_INVALID')
  })

  it('DELETE /auth/{refresh_token}: 204, then 404; 404 for another user\'s or an unknown token; 401 without a token', async () => {
    const mine = await session()
    const theirs = await session(USERS.editor)
    expectError(await http(base, 'DELETE', `/auth/${mine.refresh_token}`), 401, 'AUTHENTICATION_REQUIRED')
    expectError(await http(base, 'DELETE', `/auth/${theirs.refresh_token}`, { headers: bearer(mine.access_token) }), 404, 'REFRESH_TOKEN_NOT_FOUND')
    expect((await refresh(theirs.refresh_token)).status).toBe(200)
    const gone = await http(base, 'DELETE', `/auth/${mine.refresh_token}`, { headers: bearer(mine.access_token) })
    expect(gone.status).toBe(204)
    expect(gone.body).toBeUndefined()
    expectError(await http(base, 'DELETE', `/auth/${mine.refresh_token}`, { headers: bearer(mine.access_token) }), 404, 'REFRESH_TOKEN_NOT_FOUND')
    expectError(await refresh(mine.refresh_token), 401, 'REFRESH_TOKEN_INVALID')
    expectError(await http(base, 'DELETE', '/auth/unknown-token', { headers: bearer(mine.access_token) }), 404, 'REFRESH_TOKEN_NOT_FOUND')
    expectError(await http(base, 'DELETE', `/auth/${'z'.repeat(5000)}`, { headers: bearer(mine.access_token) }), 404, 'REFRESH_TOKEN_NOT_FOUND')
  })

  it('GET /me: 401 without a token; the user of the token with its fields', async () => {
    expectError(await http(base, 'GET', '/me'), 401, 'AUTHENTICATION_REQUIRED')
    const me = await http(base, 'GET', '/me', { headers: bearer(s.tokens.member) })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ api: 'me', method: 'get', url: `${base}/me` })
    const { password: _password, ...fields } = USERS.member
    expect(me.body.data.user).toEqual({ id: 2, ...fields, created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/) })
    expect(me.headers.get('cache-control')).not.toBe('public')
  })

  it('unusable access tokens answer 401 TOKEN_INVALID or TOKEN_EXPIRED, even on public reads', async () => {
    const valid = await mint()
    expect((await http(base, 'GET', '/objects/members-only', { headers: bearer(valid) })).status).toBe(200)
    const now = Math.floor(Date.now() / 1000)
    const { refresh_token: refreshToken } = await session()
    const invalid: [string, string][] = [
      ['garbage', 'garbage'], ['truncated', valid.slice(0, -6)], ['tampered payload', valid.replace(/\.[^.]+\./, `.${b64({ ...decodeJwt(valid), groups: ['administrator'] })}.`)],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(decodeJwt(valid))}.`],
      ['wrong secret', await mint({}, { secret: OTHER_SECRET })], ['wrong issuer', await mint({}, { issuer: 'someone-else' })],
      ['HS512', await mint({}, { alg: 'HS512' })], ['refresh token', refreshToken], ['id not a number', await mint({ id: '2' })],
      ['empty', ''],
    ]
    for (const [what, token] of invalid) {
      for (const path of ['/objects/1', '/objects', '/']) {
        const res = await http(base, 'GET', path, { headers: { authorization: `Bearer ${token}` } })
        expect(res.status, `${what} ${path}`).toBe(401)
        expect(res.body.error.code, what).toBe('TOKEN_INVALID')
      }
    }
    expectError(await http(base, 'GET', '/objects/1?access_token=garbage'), 401, 'TOKEN_INVALID')
    const expired = await mint({}, { exp: now - 10 })
    expectError(await http(base, 'GET', '/objects/1', { headers: bearer(expired) }), 401, 'TOKEN_EXPIRED')
    expectError(await http(base, 'GET', `/objects?access_token=${expired}`), 401, 'TOKEN_EXPIRED')
  })

  it('no token, refresh token or password appears in the system\'s log output', () => {
    const out = s.system.output()
    expect(out.length).toBeGreaterThan(0)
    for (const secret of secrets) {
      const at = out.indexOf(secret)
      const context = at < 0 ? '' : out.slice(Math.max(0, at - 200), at).split('\n').at(-1)
      expect(at, `a secret of ${secret.length} characters is in the log after: ${context}`).toBe(-1)
    }
  })
})

describe('changing JWT_SECRET on the same DATA_DIR', () => {
  let first: RunningSystem | undefined
  let second: RunningSystem | undefined
  afterAll(async () => {
    await second?.stop()
    await first?.stop()
    if (first) removeDir(first.dataDir)
  })

  it('invalidates every access token issued before', async () => {
    first = await startSystem({ JWT_SECRET: SECRET })
    const old = await login(first.base, ADMIN.username, ADMIN.password)
    expect((await http(first.base, 'GET', '/me', { headers: { authorization: `Bearer ${old.access_token}` } })).status).toBe(200)
    await first.stop()
    second = await startSystem({ JWT_SECRET: OTHER_SECRET }, first.dataDir)
    expectError(await http(second.base, 'GET', '/objects/1', { headers: { authorization: `Bearer ${old.access_token}` } }), 401, 'TOKEN_INVALID')
    expectError(await http(second.base, 'GET', '/me', { headers: { authorization: `Bearer ${old.access_token}` } }), 401, 'TOKEN_INVALID')
    const fresh = await login(second.base, ADMIN.username, ADMIN.password)
    expect((await http(second.base, 'GET', '/me', { headers: { authorization: `Bearer ${fresh.access_token}` } })).status).toBe(200)
  })
})
