import { DomainError } from '@content/platform'
import type { IdempotencyPort, SavedChildRow, SavedRelationRow } from '../store/objects.store.js'

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

export type Guarded<T> = { replayed: false, value: T } | { replayed: true, record: IdempotencyRecord }

function replayOf (record: IdempotencyRecord, claim: IdempotencyClaim): Guarded<never> {
  if (record.request_hash !== claim.request_hash) {
    throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for another request within 24 hours', { parameter: 'Idempotency-Key' })
  }
  return { replayed: true, record }
}

/**
 * Runs `write` at most once per live key: a key already recorded for the same request answers its
 * record (a replay), for another request IDEMPOTENCY_KEY_REUSED. `write` must hand the claim to the
 * store, which records it in the write's transaction. A write that fails after a concurrent request
 * with the key committed (the key taken, or a nickname it took) ends as that request's replay.
 */
export async function once<T> (port: IdempotencyPort, claim: IdempotencyClaim | null, write: (claim?: IdempotencyClaim) => Promise<T>): Promise<Guarded<T>> {
  if (claim === null) return { replayed: false, value: await write() }
  const found = await port.get(claim.user_id, claim.key, claim.at)
  if (found !== null) return replayOf(found, claim)
  try {
    return { replayed: false, value: await write(claim) }
  } catch (err) {
    const winner = await port.get(claim.user_id, claim.key, claim.at)
    if (winner === null) throw err
    return replayOf(winner, claim)
  }
}
