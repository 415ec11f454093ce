import { createHmac, timingSafeEqual } from 'node:crypto'

const SIGNATURE_LENGTH = 22
const EXPIRES = /^[1-9][0-9]{0,11}$/

/** `base64url(HMAC-SHA256(key, "v1\n" + path + "\n" + expires))`, first 22 characters (128 bits). */
export function signPath (key: string | Buffer, path: string, expires: string): string {
  return createHmac('sha256', key).update(`v1\n${path}\n${expires}`).digest('base64url').slice(0, SIGNATURE_LENGTH)
}

export type SignatureVerdict = 'valid' | 'invalid' | 'expired'

/**
 * A signed path as a URL brings it (every part hostile). The signature is compared in constant time;
 * an expiry is only reported for a genuine signature, so a forged URL learns nothing.
 */
export function verifyPath (key: string | Buffer, path: string, expires: string, signature: string, nowMs: number): SignatureVerdict {
  if (expires !== '' && !EXPIRES.test(expires)) return 'invalid'
  const expected = Buffer.from(signPath(key, path, expires))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
  return expires !== '' && Number(expires) * 1000 <= nowMs ? 'expired' : 'valid'
}
