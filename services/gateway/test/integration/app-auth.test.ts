import { describe, expect, it } from 'vitest'
import { FAKE_API_KEY } from '../support/fake-backends.js'
import { buildTestApp } from '../support/test-app.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken, unsignedToken } from '../support/tokens.js'

const gw = gatewayTest()

const login = (payload: unknown, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: 'POST', url: '/auth', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) })
const lastCall = (method: string) => gw.backends.calls.filter((c) => c.method === method).at(-1)?.request as Record<string, unknown>

describe('POST /auth', () => {
  it('password grant (default) → token data; client address passed for rate limiting', async () => {
    const res = await login({ username: 'admin', password: 'secret' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json()).toMatchObject({ api: 'auth', method: 'post', data: { access_token: expect.any(String), expires_in: 600, refresh_token: 'refresh-7-new' } })
    expect(lastCall('auth.Login')).toEqual({ username: 'admin', password: 'secret', client_address: '127.0.0.1' })
  })

  it('the client address is X-Forwarded-For only when the peer is a configured proxy', async () => {
    const forwarded = { 'x-forwarded-for': '198.51.100.9' }
    await login({ username: 'admin', password: 'secret' }, forwarded)
    expect(lastCall('auth.Login').client_address).toBe('127.0.0.1') // no proxy configured: a client cannot pick its address
    for (const [trustProxy, address] of [[['10.0.0.0/8'], '127.0.0.1'], [['127.0.0.1'], '198.51.100.9'], [['127.0.0.0/8', '::1'], '198.51.100.9']] as const) {
      const behind = await buildTestApp(gw.backends, { settings: { trustProxy: [...trustProxy] } })
      try {
        await behind.inject({ method: 'POST', url: '/auth', headers: { 'content-type': 'application/json', ...forwarded }, payload: JSON.stringify({ username: 'admin', password: 'secret' }) })
        expect(lastCall('auth.Login').client_address, trustProxy.join()).toBe(address)
      } finally {
        await behind.close()
      }
    }
  })

  it('refresh grant → new token data', async () => {
    const res = await login({ grant_type: 'refresh_token', refresh_token: 'good-refresh' })
    expect(res.json().data.refresh_token).toBe('refresh-7-new')
    expect(lastCall('auth.Refresh')).toEqual({ refresh_token: 'good-refresh' })
  })

  it.each([
    [{ username: 'admin', password: 'nope' }, 401, 'LOGIN_FAILED'],
    [{ grant_type: 'refresh_token', refresh_token: 'stolen' }, 401, 'REFRESH_TOKEN_INVALID'],
    [{ username: 'admin' }, 400, 'MISSING_PARAMETER'],
    [{ password: 'x' }, 400, 'MISSING_PARAMETER'],
    [{ username: 'admin', password: 42 }, 400, 'INVALID_PARAMETER'],
    [{ grant_type: 'refresh_token' }, 400, 'MISSING_PARAMETER'],
    [{ grant_type: 'client_credentials' }, 400, 'INVALID_PARAMETER'],
    [{ username: 'a'.repeat(5000), password: 'x' }, 400, 'INVALID_PARAMETER'],
    [[1, 2], 400, 'MISSING_PARAMETER'],
  ])('%j → %i %s', async (payload, status, code) => {
    const res = await login(payload)
    expect(res.statusCode).toBe(status)
    expect(res.json().error.code).toBe(code)
  })

  it('when logins are rate limited, then 429 with Retry-After', async () => {
    const res = await login({ username: 'flood', password: 'x' })
    expect(res.statusCode).toBe(429)
    expect(res.headers['retry-after']).toBe('42')
    expect(res.json().error.code).toBe('TOO_MANY_REQUESTS')
  })

  it('when an expired access token is sent along, then 401 TOKEN_EXPIRED (send only the refresh token)', async () => {
    const res = await login({ grant_type: 'refresh_token', refresh_token: 'good-refresh' }, { authorization: `Bearer ${await signToken({ expiresIn: -10 })}` })
    expect(res.json().error.code).toBe('TOKEN_EXPIRED')
    expect(gw.backends.calls).toHaveLength(0)
  })
})

describe('GET /auth', () => {
  it('answers the token and its remaining seconds', async () => {
    const token = await signToken({ expiresIn: 300 })
    const res = await gw.app.inject({ method: 'GET', url: '/auth', headers: { authorization: `Bearer ${token}` } })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.access_token).toBe(token)
    expect(data.expires_in).toBeGreaterThan(295)
    expect(data.expires_in).toBeLessThanOrEqual(300)
    // it holds the token: private, and never stored or revalidated (no ETag)
    expect(res.headers['cache-control']).toBe('private, no-store')
    expect(res.headers.etag).toBeUndefined()
  })

  it('accepts ?access_token= and never echoes it in params', async () => {
    const token = await signToken()
    const res = await gw.app.inject({ method: 'GET', url: `/auth?access_token=${token}` })
    expect(res.statusCode).toBe(200)
    expect(res.json().params).toEqual([])
  })

  it('without a token → 401 AUTHENTICATION_REQUIRED with a Bearer challenge', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/auth' })
    expect(res.json().error).toMatchObject({ status: 401, code: 'AUTHENTICATION_REQUIRED' })
    expect(res.headers['www-authenticate']).toBe('Bearer realm="content-objects"')
  })

  it.each([
    [{ expiresIn: -10 }, 'TOKEN_EXPIRED', 'the access token has expired'],
    [{ issuer: 'someone-else' }, 'TOKEN_INVALID', 'the access token is invalid'],
  ])('a bad token (%j) → 401 %s with an invalid_token challenge', async (options, code, description) => {
    const res = await gw.app.inject({ method: 'GET', url: '/auth', headers: { authorization: `Bearer ${await signToken(options)}` } })
    expect(res.json().error.code).toBe(code)
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="content-objects", error="invalid_token", error_description="${description}"`)
  })
})

describe('DELETE /auth/{refresh_token}', () => {
  it('204 when revoked; 404 when unknown; 401 without a token', async () => {
    const headers = { authorization: `Bearer ${await signToken({ id: 7 })}` }
    expect((await gw.app.inject({ method: 'DELETE', url: '/auth/known', headers })).statusCode).toBe(204)
    expect(lastCall('auth.Revoke')).toEqual({ caller: { user_id: 7, groups: ['editor'], may_write: false }, refresh_token: 'known' })
    expect((await gw.app.inject({ method: 'DELETE', url: '/auth/other', headers })).json().error.code).toBe('REFRESH_TOKEN_NOT_FOUND')
    expect((await gw.app.inject({ method: 'DELETE', url: '/auth/known' })).json().error.code).toBe('AUTHENTICATION_REQUIRED')
  })
})

describe('GET /me', () => {
  it('answers data.user and the card as data.object', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${await signToken({ id: 7 })}` } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      api: 'me',
      data: {
        user: { id: 7, username: 'admin', name: 'Admin', email: 'admin@example.org', groups: ['administrator'], created: '2024-01-02T03:04:05+0000' },
        object: { id: 3, nickname: 'hello' },
      },
    })
    expect(Object.keys(res.json().data.user).sort()).toEqual(['created', 'email', 'groups', 'id', 'name', 'username'])
  })

  it('needs a token', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/me' })).statusCode).toBe(401)
  })
})

describe('API keys as bearer credentials', () => {
  it('a valid key is traded once for an access token of its identity, which the backends get, and reused', async () => {
    const exchanges = () => gw.backends.calls.filter((c) => c.method === 'auth.ExchangeApiKey').length
    const first = await gw.app.inject({ method: 'GET', url: '/objects', headers: { authorization: `Bearer ${FAKE_API_KEY}` } })
    expect(first.statusCode).toBe(200)
    expect(gw.backends.calls.findLast((c) => c.method === 'objects.ListObjects')?.caller).toEqual({ user_id: 9, groups: ['editor'], may_write: true })
    const second = await gw.app.inject({ method: 'GET', url: `/objects?access_token=${FAKE_API_KEY}` })
    expect(second.statusCode).toBe(200)
    expect(exchanges()).toBe(1)
    const write = await gw.app.inject({ method: 'DELETE', url: '/objects/5', headers: { authorization: `Bearer ${FAKE_API_KEY}` } })
    expect(gw.backends.calls.findLast((c) => c.method === 'objects.DeleteObject')?.caller.user_id).toBe(9)
    expect(write.statusCode).toBeLessThan(500)
  })

  it('an unknown, revoked or malformed key is 401 TOKEN_INVALID, and nothing is cached for it', async () => {
    for (const key of [`ck_${'c'.repeat(16)}_${'d'.repeat(43)}`, 'ck_short']) {
      const res = await gw.app.inject({ method: 'GET', url: '/objects', headers: { authorization: `Bearer ${key}` } })
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('TOKEN_INVALID')
      expect(res.headers['www-authenticate']).toContain('invalid_token')
    }
    const badKey = `ck_${'c'.repeat(16)}_${'d'.repeat(43)}`
    await gw.app.inject({ method: 'GET', url: '/objects', headers: { authorization: `Bearer ${badKey}` } })
    expect(gw.backends.calls.filter((c) => c.method === 'auth.ExchangeApiKey' && (c.request as { secret: string }).secret === badKey)).toHaveLength(2)
  })
})

describe('invalid tokens on every request (decisions §2)', () => {
  it.each([
    ['/objects', 'garbage'],
    ['/objects/3', 'alg-none'],
    ['/', 'expired'],
    ['/nope', 'garbage'],
    ['/objects/5/bogusfilter', 'garbage'],
  ])('GET %s with a %s token → 401', async (url, kind) => {
    const token = kind === 'garbage' ? 'abc.def.ghi' : kind === 'alg-none' ? unsignedToken() : await signToken({ expiresIn: -5 })
    const res = await gw.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
    if (url.endsWith('bogusfilter')) {
      // a malformed path is a 400 and comes first
      expect(res.json().error.code).toBe('UNKNOWN_PATH_FILTER')
      return
    }
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe(kind === 'expired' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID')
  })

  it('an invalid query token is a 401 even when a header is absent', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/objects?access_token=nope' })).json().error.code).toBe('TOKEN_INVALID')
  })

  it('the header wins over the query token', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/objects?access_token=nope', headers: { authorization: `Bearer ${await signToken()}` } })
    expect(res.statusCode).toBe(200)
  })

  it('an invalid token comes before 405', async () => {
    expect((await gw.app.inject({ method: 'PATCH', url: '/objects', headers: { authorization: 'Bearer x' } })).json().error.code).toBe('TOKEN_INVALID')
  })
})
