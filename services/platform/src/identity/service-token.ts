import { SignJWT, jwtVerify } from 'jose'
import { LRUCache } from 'lru-cache'

/**
 * Service tokens: every gRPC call carries a short-lived JWT naming the calling service, signed with
 * SERVICE_SECRET, which only the services hold. A backend refuses a call without a valid one, so a
 * process that can merely reach its port gets nothing.
 */
const AUDIENCE = 'content-services'
const ALGORITHM = 'HS256'
const LIFETIME_SECONDS = 300
/** A token is replaced this long before it expires, so one in flight never arrives stale. */
const RENEW_BEFORE_SECONDS = 60

export interface ServiceIdentity {
  /** the calling service: gateway, objects, poster, auth, admin */
  name: string
  secret: string
}

export type ServiceTokenSource = () => Promise<string>

/** The caller's current token, minted again a minute before it expires. */
export function serviceTokenSource (identity: ServiceIdentity, now: () => number = Date.now): ServiceTokenSource {
  const key = new TextEncoder().encode(identity.secret)
  let current: { token: Promise<string>, renewAt: number } | undefined
  return () => {
    const seconds = Math.floor(now() / 1000)
    if (current === undefined || seconds >= current.renewAt) {
      const token = new SignJWT({}).setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' }).setIssuer(identity.name)
        .setAudience(AUDIENCE).setIssuedAt(seconds).setExpirationTime(seconds + LIFETIME_SECONDS).sign(key)
      current = { token, renewAt: seconds + LIFETIME_SECONDS - RENEW_BEFORE_SECONDS }
      token.catch(() => { current = undefined })
    }
    return current.token
  }
}

export type ServiceTokenVerifier = (token: string) => Promise<string | null>

/** The name of the service a token was signed for, or null when it is not a valid service token. */
export function createServiceTokenVerifier (secret: string, now: () => number = Date.now): ServiceTokenVerifier {
  const key = new TextEncoder().encode(secret)
  // a caller keeps one token for four minutes: the signature is checked once per token, not per call
  const cache = new LRUCache<string, string>({ max: 256 })
  return async (token) => {
    const known = cache.get(token)
    if (known !== undefined) return known
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM], audience: AUDIENCE, typ: 'JWT', requiredClaims: ['iss', 'exp', 'iat'], currentDate: new Date(now()),
      })
      const { iss, exp } = payload as { iss: string, exp: number }
      cache.set(token, iss, { ttl: Math.max(1, exp * 1000 - now()) })
      return iss
    } catch {
      return null
    }
  }
}
