import { TEST_IDENTITY } from '@content/platform/testing'
import { SignJWT } from 'jose'

export const SECRET = TEST_IDENTITY.JWT_SECRET
export const ISSUER = TEST_IDENTITY.JWT_ISSUER

export interface TokenOptions {
  id?: number
  groups?: string[]
  /** the auth service's claim; left out when undefined */
  backend_auth?: unknown
  secret?: string
  alg?: string
  issuer?: string
  /** seconds from now; negative = already expired */
  expiresIn?: number
  typ?: string
  now?: number
}

/** A token shaped like the auth service's (decisions §6). */
export async function signToken (o: TokenOptions = {}): Promise<string> {
  const id = o.id ?? 7
  const now = Math.floor((o.now ?? Date.now()) / 1000)
  const extra = o.backend_auth === undefined ? {} : { backend_auth: o.backend_auth }
  return new SignJWT({ id, groups: o.groups ?? ['editor'], ...extra })
    .setProtectedHeader({ alg: o.alg ?? 'HS256', typ: o.typ ?? 'JWT' })
    .setIssuer(o.issuer ?? ISSUER)
    .setSubject(String(id))
    .setIssuedAt(now - 5)
    .setExpirationTime(now + (o.expiresIn ?? 600))
    .setJti(`jti-${Math.random().toString(36).slice(2)}`)
    .sign(new TextEncoder().encode(o.secret ?? SECRET))
}

/** An unsigned `alg: none` token with otherwise valid claims. */
export function unsignedToken (): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const now = Math.floor(Date.now() / 1000)
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: ISSUER, sub: '7', id: 7, groups: ['administrator'], iat: now, exp: now + 600, jti: 'x' })}.`
}
