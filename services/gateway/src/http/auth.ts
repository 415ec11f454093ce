import { errors as joseErrors, jwtVerify } from 'jose'
import { LRUCache } from 'lru-cache'
import { HttpError } from './errors.js'

export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512'

/** What the gateway takes from a verified access token. */
export interface TokenClaims {
  userId: number
  groups: string[]
  /** the `backend_auth` claim: one of the user's groups may write */
  mayWrite: boolean
  /** seconds since the epoch */
  exp: number
}

/** The identity sent to backends; user 0 without groups is anonymous. */
export interface Caller { user_id: number, groups: string[], may_write: boolean }

export const ANONYMOUS: Caller = Object.freeze({ user_id: 0, groups: Object.freeze([]) as unknown as string[], may_write: false })

export interface VerifierSettings {
  secret: string
  issuer: string
  algorithm: JwtAlgorithm
  /** verified tokens kept so a repeated bearer token skips the signature check */
  cacheEntries?: number
  now?: () => number
}

export type TokenVerifier = (token: string) => Promise<TokenClaims>

const invalid = (message = 'the access token is invalid') => new HttpError(401, 'TOKEN_INVALID', message)
const expired = () => new HttpError(401, 'TOKEN_EXPIRED', 'the access token has expired')

function claimsOf (payload: Record<string, unknown>): TokenClaims {
  const { id, sub, groups, exp, backend_auth: backendAuth } = payload
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0 || sub !== String(id)) throw invalid()
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string')) throw invalid()
  if (typeof exp !== 'number') throw invalid()
  if (backendAuth !== undefined && typeof backendAuth !== 'boolean') throw invalid()
  return Object.freeze({ userId: id, groups: [...groups].sort(), mayWrite: backendAuth === true, exp })
}

/**
 * Local verification (decisions §6): only the configured HMAC algorithm, the configured issuer,
 * `typ: JWT`, and an `exp`. Expired → TOKEN_EXPIRED; anything else wrong → TOKEN_INVALID.
 */
export function createTokenVerifier (settings: VerifierSettings): TokenVerifier {
  const key = new TextEncoder().encode(settings.secret)
  const now = settings.now ?? Date.now
  const cache = new LRUCache<string, TokenClaims>({ max: settings.cacheEntries ?? 1000 })
  return async (token) => {
    const cached = cache.get(token)
    if (cached) {
      if (cached.exp * 1000 <= now()) {
        cache.delete(token)
        throw expired()
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
      if (err instanceof joseErrors.JWTExpired) throw expired()
      throw invalid()
    }
    const claims = claimsOf(payload)
    cache.set(token, claims, { ttl: Math.max(1, claims.exp * 1000 - now()) })
    return claims
  }
}

/**
 * The presented token: `Authorization: Bearer …` wins over `?access_token=`. A present but unusable
 * header (another scheme, empty) counts as an invalid token, not as anonymous.
 */
export function presentedToken (authorization: string | undefined, query: URLSearchParams): string | undefined {
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw invalid('the Authorization header must be "Bearer <token>"')
    return match[1]
  }
  const fromQuery = query.get('access_token')
  if (fromQuery === null) return undefined
  if (fromQuery === '') throw invalid()
  return fromQuery
}

export const callerOf = (claims: TokenClaims | undefined): Caller =>
  claims ? { user_id: claims.userId, groups: [...claims.groups], may_write: claims.mayWrite } : { user_id: 0, groups: [], may_write: false }
