import { randomBytes } from 'node:crypto'
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2'

/** `Algorithm.Argon2id`; the enum is a const enum that isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm

/**
 * The one place the password-hash parameters live: argon2id at OWASP's minimum (19 MiB, 2 passes,
 * 1 lane). Raising them later is safe: each stored hash carries its own parameters.
 */
export const ARGON2_OPTIONS: Readonly<Options> = Object.freeze({
  algorithm: ARGON2ID,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
})

export function hashPassword (password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS)
}

/** false for a wrong password and for a hash that cannot be parsed. */
export async function verifyPassword (passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}

/**
 * A hash of a random secret, verified against when the username is unknown so the answer takes as
 * long as for a real user.
 */
export function dummyPasswordHash (): Promise<string> {
  return hashPassword(randomBytes(24).toString('base64url'))
}

/** A strong generated password (144 random bits). */
export function generatePassword (): string {
  return randomBytes(18).toString('base64url')
}
