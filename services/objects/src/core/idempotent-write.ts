import { DomainError } from '@content/platform'
import type { IdempotencyClaim, IdempotencyRecord } from './idempotency.js'
import type { IdempotencyPort } from './ports.js'

/** A write's own result, or the record of the first write of its key (a replay). */
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
