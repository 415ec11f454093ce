import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const TOKEN_BYTES = 32
/** base64url of 32 bytes, no padding */
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/

/** An opaque refresh token: 256 random bits. Only its hash is ever stored. */
export function newRefreshToken (): string {
  return randomBytes(TOKEN_BYTES).toString('base64url')
}

export const isWellFormedRefreshToken = (token: string) => WELL_FORMED.test(token)

/** The store key of a token; the token itself cannot be recovered from it. */
export function hashRefreshToken (token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url')
}

/** A login family's id: when it started (ms, base 36), a dot, 128 random bits. */
export function newFamilyId (now: number): string {
  return `${Math.floor(now).toString(36)}.${randomBytes(16).toString('base64url')}`
}

/** When a family started; 0 for ids made before they carried it. */
export function familyStartedAt (familyId: string): number {
  const dot = familyId.indexOf('.')
  const ms = dot > 0 ? parseInt(familyId.slice(0, dot), 36) : 0
  return Number.isSafeInteger(ms) ? ms : 0
}

/** Key that only a holder of the old token can derive (distinct from its store hash). */
const successorKey = (oldToken: string) => createHash('sha256').update('successor\0').update(oldToken, 'utf8').digest()

/**
 * Seals a successor token under its predecessor, so a second tab presenting the predecessor within
 * the grace window can be given the successor while the store still holds no usable token.
 */
export function sealSuccessor (oldToken: string, successor: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', successorKey(oldToken), iv)
  const body = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The successor, or null when `sealed` was not made with `oldToken`. */
export function openSuccessor (oldToken: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', successorKey(oldToken), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    return null
  }
}
