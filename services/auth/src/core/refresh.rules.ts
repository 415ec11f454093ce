/** What the store knows about a presented refresh token. */
export interface RefreshState {
  status: 'active' | 'rotated'
  /** ms since the epoch */
  expiresAt: number
  /** ms since the epoch, when it was rotated out */
  rotatedAt: number | null
  familyRevoked: boolean
}

export interface RefreshPolicy {
  rotation: boolean
  graceMs: number
}

/**
 * - `rotate`: issue a successor, retire the presented token
 * - `extend`: rotation off; the same token lives on with a new expiry
 * - `grace`: a token rotated out moments ago (a second tab); answer with its successor
 * - `theft`: a token rotated out long ago came back; end the whole login family
 * - `invalid`: unknown, expired or revoked
 */
export type RefreshDecision = 'rotate' | 'extend' | 'grace' | 'theft' | 'invalid'

export function decideRefresh (state: RefreshState | null, now: number, policy: RefreshPolicy): RefreshDecision {
  if (state === null || state.familyRevoked || state.expiresAt <= now) return 'invalid'
  if (state.status === 'active') return policy.rotation ? 'rotate' : 'extend'
  if (state.rotatedAt !== null && now - state.rotatedAt <= policy.graceMs) return 'grace'
  return 'theft'
}

/** A refresh token may be revoked by its own user while it is the live token of a live family. */
export function mayRevoke (state: RefreshState | null, ownerId: number | null, callerId: number, now: number): boolean {
  return state !== null && !state.familyRevoked && state.status === 'active' && state.expiresAt > now &&
    callerId > 0 && ownerId === callerId
}
