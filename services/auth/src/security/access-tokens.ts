import { SignJWT } from 'jose'
import type { AccessClaims } from '../core/access-claims.js'

/** Signs with the shared HMAC secret the gateway verifies with. */
export function signAccessToken (claims: AccessClaims, secret: Uint8Array): Promise<string> {
  return new SignJWT(claims.payload).setProtectedHeader(claims.header).sign(secret)
}
