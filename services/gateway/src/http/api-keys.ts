import { toTransportError } from '@content/platform'
import { LRUCache } from 'lru-cache'
import type { TokenClaims, TokenVerifier } from './auth.js'
import { HttpError } from './errors.js'

/** What a presented bearer credential comes to: the access token passed to the backends, and its claims. */
export interface Credential { token: string, claims: TokenClaims }

export type Authenticate = (presented: string) => Promise<Credential>

/** The auth service's trade of an API key for an access token. */
export type ExchangeApiKey = (key: string) => Promise<{ access_token: string, expires_in: number }>

const API_KEY = /^ck_/

/** An API key rather than an access token. */
export const isApiKey = (presented: string): boolean => API_KEY.test(presented)

/**
 * Access tokens are verified here (and again by each backend). An API key (`ck_…`) is traded with the
 * auth service for a short-lived access token of its identity, kept for `cacheMs` (a revoked key stops
 * working within it; the token itself lives at most ACCESS_TOKEN_TTL), so a job
 * that calls with its key does not cost an exchange per request; concurrent first uses share one.
 */
export function createAuthenticator (verify: TokenVerifier, exchange: ExchangeApiKey, cacheMs: number): Authenticate {
  const exchanged = new LRUCache<string, Promise<string>>({ max: 1_000 })
  const tokenFor = (key: string): Promise<string> => {
    const known = exchanged.get(key)
    if (known) return known
    const pending = exchange(key).then(({ access_token: token, expires_in: expiresIn }) => {
      const ttl = Math.min(cacheMs, (expiresIn - 30) * 1000)
      if (ttl > 0) exchanged.set(key, pending, { ttl })
      else exchanged.delete(key)
      return token
    }, (err: unknown) => {
      exchanged.delete(key)
      if (toTransportError(err).reason === 'TOKEN_INVALID') throw new HttpError('TOKEN_INVALID', 'the API key is invalid, expired or revoked')
      throw err
    })
    exchanged.set(key, pending) // shared by concurrent first uses until it settles
    return pending
  }
  return async (presented) => {
    const token = isApiKey(presented) ? await tokenFor(presented) : presented
    return { token, claims: await verify(token) }
  }
}
