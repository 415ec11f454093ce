import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { present } from '@content/platform'

/**
 * An API key is `ck_<id>_<secret>`: the id (16 hex digits) names it in lists and logs, the secret
 * (256 random bits) proves it. Only the SHA-256 of the secret is stored; a key this random needs no
 * slow hash.
 */
const FORMAT = /^ck_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/

export const API_KEY_PREFIX = 'ck_'

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex')

export function newApiKey (): { id: string, key: string, secretHash: string } {
  const id = randomBytes(8).toString('hex')
  const secret = randomBytes(32).toString('base64url')
  return { id, key: `${API_KEY_PREFIX}${id}_${secret}`, secretHash: hashSecret(secret) }
}

/** The id and secret hash of a well-formed key, else null. */
export function parseApiKey (key: string): { id: string, secretHash: string } | null {
  const match = FORMAT.exec(key)
  return match ? { id: present(match[1], 'the key id'), secretHash: hashSecret(present(match[2], 'the key secret')) } : null
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash (a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}
