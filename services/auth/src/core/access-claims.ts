export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512'

export interface AccessClaimsInput {
  user: { id: number, groups: string[] }
  /** one of the user's groups has backend_auth: the user may write */
  mayWrite: boolean
  issuer: string
  algorithm: JwtAlgorithm
  /** seconds since the epoch */
  now: number
  ttlSeconds: number
  jti: string
  /** the login (refresh-token family) the token belongs to; absent for an API key's */
  sid?: string
}

export interface AccessClaims {
  header: { alg: JwtAlgorithm, typ: 'JWT' }
  payload: { iss: string, sub: string, id: number, groups: string[], backend_auth: boolean, iat: number, exp: number, jti: string, sid?: string }
}

/** The header and claims of an access token (decisions §6); the gateway builds its Caller from them. */
export function buildAccessClaims (input: AccessClaimsInput): AccessClaims {
  const iat = Math.floor(input.now)
  return {
    header: { alg: input.algorithm, typ: 'JWT' },
    payload: {
      iss: input.issuer,
      sub: String(input.user.id),
      id: input.user.id,
      groups: [...input.user.groups],
      backend_auth: input.mayWrite,
      iat,
      exp: iat + input.ttlSeconds,
      jti: input.jti,
      ...(input.sid === undefined ? {} : { sid: input.sid }),
    },
  }
}
