import { DomainError } from '@content/platform'
import type { SavedChildRow, SavedRelationRow } from './types.js'

/** How long a key answers its first answer again; older keys are free (and pruned). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000

/** A record made at `at` counts until this instant, exclusive: live while `created_at > expiredAt(now)`. */
export const expiredAt = (now: number): number => now - IDEMPOTENCY_WINDOW_MS

/** An idempotency key as a guarded write records it, in the write's own transaction. */
export interface IdempotencyClaim {
  /** the verified caller: keys are scoped per user */
  user_id: number
  key: string
  /** the gateway's fingerprint of the request (method, path, canonical body) */
  request_hash: string
  /** ms since the epoch */
  at: number
}

/** What a guarded write did: enough to rebuild its answer when the answer itself was not stored. */
export type WriteOutcome =
  | { kind: 'object', id: number, created: boolean }
  | { kind: 'relations', items: SavedRelationRow[] }
  | { kind: 'children', items: SavedChildRow[] }

export interface IdempotencyRecord {
  request_hash: string
  outcome: WriteOutcome
  /** the answer as first given (JSON), null until it was stored after the commit */
  response: string | null
  created_at: number
}

/** The claim of a request's key, or null without one. */
export function claimOf (req: { idempotency_key?: string, request_hash?: string }, userId: number, at: number): IdempotencyClaim | null {
  const key = req.idempotency_key ?? ''
  if (key === '') return null
  const hash = req.request_hash ?? ''
  if (hash === '') throw new DomainError('VALIDATION_FAILED', 'an idempotency key needs the request hash', { request_hash: 'is required with idempotency_key' })
  return { user_id: userId, key, request_hash: hash, at }
}
