import { ANONYMOUS, createAccessTokenVerifier, TokenRejected, type AccessTokenSettings, type Caller, type TokenClaims } from '@content/platform'
import { HttpError } from './errors.js'

export type { Caller, JwtAlgorithm, TokenClaims } from '@content/platform'

export type VerifierSettings = AccessTokenSettings

export type TokenVerifier = (token: string) => Promise<TokenClaims>

const invalid = (message = 'the access token is invalid') => new HttpError('TOKEN_INVALID', message)

/**
 * Local verification (decisions §6), the same the backends run on the token the gateway passes on:
 * expired → TOKEN_EXPIRED; anything else wrong → TOKEN_INVALID.
 */
export function createTokenVerifier (settings: VerifierSettings): TokenVerifier {
  const verify = createAccessTokenVerifier(settings)
  return async (token) => {
    try {
      return await verify(token)
    } catch (err) {
      if (err instanceof TokenRejected) throw new HttpError(err.reason === 'expired' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID', err.message)
      throw err
    }
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
  claims ? { user_id: claims.userId, groups: [...claims.groups], may_write: claims.mayWrite } : ANONYMOUS
