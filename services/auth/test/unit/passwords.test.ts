import { describe, expect, it } from 'vitest'
import { ARGON2_OPTIONS, dummyPasswordHash, generatePassword, hashPassword, verifyPassword } from '../../src/security/passwords.js'

describe('password hashing', () => {
  it('uses argon2id at or above the OWASP minimum', () => {
    expect(ARGON2_OPTIONS.memoryCost).toBeGreaterThanOrEqual(19_456)
    expect(ARGON2_OPTIONS.timeCost).toBeGreaterThanOrEqual(2)
    expect(ARGON2_OPTIONS.parallelism).toBeGreaterThanOrEqual(1)
  })

  it('stores argon2id hashes with the configured parameters', async () => {
    const stored = await hashPassword('correct horse')
    expect(stored.startsWith('$argon2id$')).toBe(true)
    expect(stored).toContain(`m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}`)
    expect(stored).not.toContain('correct horse')
  })

  it.each([
    ['the right password', 'correct horse', true],
    ['a wrong password', 'correct horsE', false],
    ['an empty password', '', false],
  ])('verifies %s', async (_label, attempt, expected) => {
    const stored = await hashPassword('correct horse')
    expect(await verifyPassword(stored, attempt)).toBe(expected)
  })

  it('answers false for an unparsable hash instead of throwing', async () => {
    expect(await verifyPassword('not-a-hash', 'x')).toBe(false)
  })

  it('makes distinct dummy hashes and strong generated passwords', async () => {
    expect((await dummyPasswordHash()).startsWith('$argon2id$')).toBe(true)
    const a = generatePassword()
    expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(generatePassword()).not.toBe(a)
  })
})
