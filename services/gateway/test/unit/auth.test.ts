import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { callerOf, createTokenVerifier, presentedToken } from '../../src/http/auth.js'
import { ISSUER, SECRET, signToken, unsignedToken } from '../support/tokens.js'

const verifier = (algorithm: 'HS256' | 'HS384' | 'HS512' = 'HS256', now?: () => number) =>
  createTokenVerifier({ secret: SECRET, issuer: ISSUER, algorithm, ...(now ? { now } : {}) })

async function reasonOf (p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'OK'
  } catch (err) {
    return (err as { reason: string }).reason
  }
}

describe('token verification', () => {
  it('when the token is valid, then claims give the caller, groups sorted', async () => {
    const claims = await verifier()(await signToken({ id: 12, groups: ['editor', 'administrator'] }))
    expect(claims).toMatchObject({ userId: 12, groups: ['administrator', 'editor'] })
  })

  it.each([[true, true], [false, false], [undefined, false]])('when backend_auth is %s, then the caller may write: %s', async (claim, mayWrite) => {
    const claims = await verifier()(await signToken({ id: 12, groups: ['writers'], ...(claim === undefined ? {} : { backend_auth: claim }) }))
    expect(callerOf(claims)).toEqual({ user_id: 12, groups: ['writers'], may_write: mayWrite })
  })

  it('when backend_auth is not a boolean, then TOKEN_INVALID', async () => {
    expect(await reasonOf(verifier()(await signToken({ id: 12, groups: [], backend_auth: 'yes' })))).toBe('TOKEN_INVALID')
  })

  it('when configured for HS512, then HS512 tokens verify', async () => {
    expect(await reasonOf(verifier('HS512')(await signToken({ alg: 'HS512' })))).toBe('OK')
  })

  const bad: Array<[string, () => Promise<string>, string]> = [
    ['wrong algorithm (HS384 for HS256)', () => signToken({ alg: 'HS384' }), 'TOKEN_INVALID'],
    ['alg none', async () => unsignedToken(), 'TOKEN_INVALID'],
    ['wrong issuer', () => signToken({ issuer: 'someone-else' }), 'TOKEN_INVALID'],
    ['wrong secret', () => signToken({ secret: 'another-secret-that-is-32-bytes-long!!' }), 'TOKEN_INVALID'],
    ['expired', () => signToken({ expiresIn: -60 }), 'TOKEN_EXPIRED'],
    ['typ not JWT', () => signToken({ typ: 'at+jwt' }), 'TOKEN_INVALID'],
    ['garbage', async () => 'not-a-token', 'TOKEN_INVALID'],
    ['three garbage parts', async () => 'a.b.c', 'TOKEN_INVALID'],
    ['refresh-token-looking string', async () => 'dGhpcyBpcyBhIHJlZnJlc2ggdG9rZW4gb2YgMzIgYnl0ZXM', 'TOKEN_INVALID'],
    ['missing id claim', () => new SignJWT({ groups: [] }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(ISSUER).setSubject('7').setExpirationTime('10m').sign(new TextEncoder().encode(SECRET)), 'TOKEN_INVALID'],
    ['sub not matching id', () => new SignJWT({ id: 8, groups: [] }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(ISSUER).setSubject('7').setExpirationTime('10m').sign(new TextEncoder().encode(SECRET)), 'TOKEN_INVALID'],
    ['groups not a list', () => new SignJWT({ id: 7, groups: 'admin' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(ISSUER).setSubject('7').setExpirationTime('10m').sign(new TextEncoder().encode(SECRET)), 'TOKEN_INVALID'],
    ['no exp', () => new SignJWT({ id: 7, groups: [] }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(ISSUER).setSubject('7').sign(new TextEncoder().encode(SECRET)), 'TOKEN_INVALID'],
  ]
  it.each(bad)('when %s, then 401 %s', async (_name, make, reason) => {
    const err = await verifier()(await make()).catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 401, reason })
  })

  it('when a cached token expires, then the next use answers TOKEN_EXPIRED', async () => {
    let now = Date.now()
    const verify = verifier('HS256', () => now)
    const token = await signToken({ expiresIn: 30, now })
    expect(await reasonOf(verify(token))).toBe('OK')
    now += 31_000
    expect(await reasonOf(verify(token))).toBe('TOKEN_EXPIRED')
  })

  it('when a token is presented twice, then the second check returns the same claims object (cached)', async () => {
    const verify = verifier()
    const token = await signToken()
    expect(await verify(token)).toBe(await verify(token))
  })
})

describe('presented token', () => {
  const q = (s: string) => new URLSearchParams(s)
  it('when header and query both carry one, then the header wins', () => {
    expect(presentedToken('Bearer from-header', q('access_token=from-query'))).toBe('from-header')
  })
  it('when only the query carries one, then it is used', () => {
    expect(presentedToken(undefined, q('access_token=abc'))).toBe('abc')
  })
  it('when none is given, then the caller is anonymous', () => {
    expect(presentedToken(undefined, q('page=1'))).toBeUndefined()
  })
  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer '], ['token abc']])('when the header is "%s", then TOKEN_INVALID', (header) => {
    expect(() => presentedToken(header, q(''))).toThrow(expect.objectContaining({ reason: 'TOKEN_INVALID' }))
  })
  it('when access_token is empty, then TOKEN_INVALID', () => {
    expect(() => presentedToken(undefined, q('access_token='))).toThrow(expect.objectContaining({ reason: 'TOKEN_INVALID' }))
  })
})
