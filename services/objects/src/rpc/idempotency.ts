import { claimOf, type IdempotencyClaim, type WriteOutcome } from '../core/idempotency.js'
import { once } from '../core/idempotent-write.js'
import type { Caller } from '../core/types.js'
import type { ObjectsServerDeps } from './deps.js'
import { sendChangeSeq, type HeaderSink } from './read-deps.js'

interface GuardedRequest { idempotency_key?: string, request_hash?: string }

/**
 * Answers a POST write at most once per idempotency key (decisions: Idempotency-Key): a repeat gets
 * the first answer as stored, or rebuilt from the recorded outcome when the first request did not get
 * to store it. The answer is stored after the commit; a failure to store it is only logged, as the
 * write stands and its outcome is recorded.
 */
export async function answerOnce<R> (deps: ObjectsServerDeps, call: HeaderSink, caller: Caller, req: GuardedRequest,
  write: (claim?: IdempotencyClaim) => Promise<R>, rebuild: (outcome: WriteOutcome) => Promise<R>): Promise<R> {
  const claim = claimOf(req, caller.user_id, deps.now())
  const result = await once(deps.store.idempotency, claim, write)
  sendChangeSeq(call, deps.store, result.replayed)
  if (result.replayed) {
    const { response, outcome } = result.record
    return response === null ? rebuild(outcome) : JSON.parse(response) as R
  }
  if (claim !== null) {
    await deps.store.idempotency.respond(claim, JSON.stringify(result.value))
      .catch((err: unknown) => { deps.log.warn({ err }, 'the answer of an idempotent write was not stored; a replay rebuilds it') })
  }
  return result.value
}

/** The outcome a replay rebuilds from, when it is of the expected kind (a key is scoped to user and request, so it always is). */
export function outcomeOf<K extends WriteOutcome['kind']> (outcome: WriteOutcome, kind: K): Extract<WriteOutcome, { kind: K }> {
  if (outcome.kind !== kind) throw new Error(`an idempotency record of a ${outcome.kind} write answered a ${kind} write`)
  return outcome as Extract<WriteOutcome, { kind: K }>
}
