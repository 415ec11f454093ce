import { describe, expect, it } from 'vitest'
import {
  hashRefreshToken, isWellFormedRefreshToken, newRefreshToken, openSuccessor, sealSuccessor,
} from '../../src/security/refresh-tokens.js'

describe('refresh tokens', () => {
  it('are 32 random bytes in base64url', () => {
    const token = newRefreshToken()
    expect(Buffer.from(token, 'base64url')).toHaveLength(32)
    expect(isWellFormedRefreshToken(token)).toBe(true)
    expect(newRefreshToken()).not.toBe(token)
  })

  it.each([['', false], ['short', false], ['a'.repeat(43), true], ['a'.repeat(44), false], [`${'a'.repeat(42)}=`, false], [`${'a'.repeat(42)}/`, false]])(
    'well-formed(%j) = %s', (token, expected) => { expect(isWellFormedRefreshToken(token)).toBe(expected) },
  )

  it('are stored as a SHA-256 hash that does not contain the token', () => {
    const token = newRefreshToken()
    const hash = hashRefreshToken(token)
    expect(Buffer.from(hash, 'base64url')).toHaveLength(32)
    expect(hash).not.toContain(token)
    expect(hashRefreshToken(token)).toBe(hash)
  })

  it('seal a successor that only the predecessor opens', () => {
    const old = newRefreshToken()
    const successor = newRefreshToken()
    const sealed = sealSuccessor(old, successor)
    expect(sealed).not.toContain(successor)
    expect(openSuccessor(old, sealed)).toBe(successor)
    expect(openSuccessor(newRefreshToken(), sealed)).toBeNull()
    expect(openSuccessor(old, 'garbage')).toBeNull()
  })
})
