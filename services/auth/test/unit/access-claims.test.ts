import { describe, expect, it } from 'vitest'
import { buildAccessClaims, type JwtAlgorithm } from '../../src/core/access-claims.js'

describe('buildAccessClaims', () => {
  it.each<[string, JwtAlgorithm, number, number, { iat: number, exp: number }]>([
    ['default lifetime', 'HS256', 1_700_000_000, 600, { iat: 1_700_000_000, exp: 1_700_000_600 }],
    ['fractional now is floored', 'HS384', 1_700_000_000.9, 60, { iat: 1_700_000_000, exp: 1_700_000_060 }],
    ['HS512, a day', 'HS512', 10, 86_400, { iat: 10, exp: 86_410 }],
  ])('%s', (_label, algorithm, now, ttlSeconds, times) => {
    const claims = buildAccessClaims({
      user: { id: 42, groups: ['administrator', 'editor'] }, mayWrite: true, issuer: 'content-objects', algorithm, now, ttlSeconds, jti: 'j-1',
    })
    expect(claims).toEqual({
      header: { alg: algorithm, typ: 'JWT' },
      payload: { iss: 'content-objects', sub: '42', id: 42, groups: ['administrator', 'editor'], backend_auth: true, jti: 'j-1', ...times },
    })
  })

  it('copies the groups so later changes do not leak into a token', () => {
    const groups = ['editor']
    const claims = buildAccessClaims({ user: { id: 1, groups }, mayWrite: false, issuer: 'i', algorithm: 'HS256', now: 0, ttlSeconds: 1, jti: 'j' })
    groups.push('administrator')
    expect(claims.payload.groups).toEqual(['editor'])
  })
})
