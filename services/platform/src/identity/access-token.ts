import { errors as joseErrors, jwtVerify } from 'jose'
import { LRUCache } from 'lru-cache'

export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512'

/** What a verified access token says about its user (decisions §6). */
export interface TokenClaims {
  userId: number
  groups: string[]
  /** the `backend_auth` claim: one of the user's groups may write */
  mayWrite: boolean
  /** seconds since the epoch */
  exp: number
  /** the login the token belongs to (`sid`); absent for an API key's token */
  session?: string
}

export interface AccessTokenSettings {
  secret: string
  issuer: string
  algorithm: JwtAlgorithm
  /** verified tokens kept so a repeated token skips the signature check */
  cacheEntries?: number
  now?: () => number
}

/** Why a token was refused; the gateway answers 401 with the matching code, backends UNAUTHENTICATED. */
export class TokenRejected extends Error {
  constructor (readonly reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? 'the access token has expired' : 'the access token is invalid')
    this.name = 'TokenRejected'
  }
}

export type AccessTokenVerifier = (token: string) => Promise<TokenClaims>

function claimsOf (payload: Record<string, unknown>): TokenClaims {
  const { id, sub, groups, exp, backend_auth: backendAuth, sid } = payload
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0 || sub !== String(id)) throw new TokenRejected('invalid')
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string')) throw new TokenRejected('invalid')
  if (typeof exp !== 'number') throw new TokenRejected('invalid')
  if (backendAuth !== undefined && typeof backendAuth !== 'boolean') throw new TokenRejected('invalid')
  if (sid !== undefined && typeof sid !== 'string') throw new TokenRejected('invalid')
  return Object.freeze({ userId: id, groups: [...groups].sort(), mayWrite: backendAuth === true, exp, ...(sid === undefined ? {} : { session: sid }) })
}

/**
 * Local verification of an access token, the same in the gateway and in every backend: only the
 * configured HMAC algorithm, the configured issuer, `typ: JWT`, and an `exp`.
 */
export function createAccessTokenVerifier (settings: AccessTokenSettings): AccessTokenVerifier {
  const key = new TextEncoder().encode(settings.secret)
  const now = settings.now ?? Date.now
  const cache = new LRUCache<string, TokenClaims>({ max: settings.cacheEntries ?? 1000 })
  return async (token) => {
    const cached = cache.get(token)
    if (cached) {
      if (cached.exp * 1000 <= now()) {
        cache.delete(token)
        throw new TokenRejected('expired')
      }
      return cached
    }
    let payload: Record<string, unknown>
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: [settings.algorithm], issuer: settings.issuer, typ: 'JWT', requiredClaims: ['exp', 'sub'],
        currentDate: new Date(now()),
      }))
    } catch (err) {
      throw new TokenRejected(err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid')
    }
    const claims = claimsOf(payload)
    cache.set(token, claims, { ttl: Math.max(1, claims.exp * 1000 - now()) })
    return claims
  }
}
