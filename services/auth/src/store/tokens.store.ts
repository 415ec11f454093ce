/** A refresh token as stored: by hash, never the token itself. */
export interface NewRefreshToken {
  hash: string
  userId: number
  /** One login and every token rotated from it. */
  familyId: string
  /** ms since the epoch; the record may vanish after it */
  expiresAt: number
}

export interface RefreshTokenRecord extends NewRefreshToken {
  status: 'active' | 'rotated'
  rotatedAt: number | null
  /** the successor token, sealed under this one (see security/refresh-tokens.ts) */
  successor: string | null
}

export interface RefreshTokenState {
  token: RefreshTokenRecord
  familyRevoked: boolean
}

/**
 * Refresh-token state: live tokens, rotated-out ones (for reuse detection) and revoked login
 * families. Every entry expires with its token. Adapters that cannot answer throw
 * UNAVAILABLE/SERVICE_UNAVAILABLE: callers fail closed.
 */
export interface TokensStore {
  issue(token: NewRefreshToken): Promise<void>
  /** null when unknown or past its expiry */
  find(hash: string, now: number): Promise<RefreshTokenState | null>
  /**
   * Atomically: the token `hash` goes from active to rotated (at `now`, keeping `sealedSuccessor`)
   * and `successor` is issued. false, with nothing written, when `hash` is no longer active.
   */
  rotate(hash: string, successor: NewRefreshToken, sealedSuccessor: string, now: number): Promise<boolean>
  /** Sliding expiry of a still active token (rotation off). false when it is not active. */
  extend(hash: string, expiresAt: number): Promise<boolean>
  /** Ends a login family until `until` (ms). true when this call revoked it, false when it already was. */
  revokeFamily(familyId: string, until: number): Promise<boolean>
  /** Whether the login family was revoked (and the revocation has not expired) */
  familyRevoked(familyId: string, now: number): Promise<boolean>
  close(): Promise<void>
}
