import { status } from '@grpc/grpc-js'
import { activeTraceparent, counter, inBatchSpan, memberError, rpcRecorder, type CallOptions } from '@content/platform'
import type { v1 } from '@content/protos'
import type { Clients } from '../http/context.js'
import { markShared } from '../http/shared-replies.js'
import { CallCoalescer, type Outcome } from './call-coalescer.js'

type Kind = 'get_object' | 'list_objects' | 'list_tree' | 'save_object'

/** One call waiting for its turn's batch: its member message, its own call (a batch of one) and what its caller listens to. */
interface Query {
  member: v1.BatchedCall
  kind: Kind
  onHeaders: CallOptions['onHeaders']
  alone: () => Promise<unknown>
}

const GROUPS: Record<Kind, string> = { get_object: 'object', list_objects: 'list', list_tree: 'list', save_object: 'save' }
/**
 * Pages travel sixteen to a batch: on SQLite the objects service works on batches of pages one at a time
 * (its call-batch.handler.ts), so a turn's pages in several batches let this gateway format the answers of
 * one while the service reads the next (loadtest/README.md, "Batches of pages, one at a time": 8, 16 and
 * 24 did alike; on PostgreSQL, 16 and 128 did alike).
 */
const MAX_BATCH: Record<string, number> = { list: 16 }

const answerOf = (kind: Kind, a: v1.BatchedAnswer__Output): unknown => (kind === 'get_object' ? a.get_object : kind === 'save_object' ? a.save_object : a.list)

const sharedAnswers = counter({
  name: 'content_shared_answers_total',
  help: 'Coalesced reads answered by an earlier member\'s answer to the same read with the same token: decoded, formatted and serialized once.',
})

/**
 * Member `i`'s answer: its own, or the earlier member's its `same_as` names (it asked the same with the
 * same token). A reference to anything but an earlier answer of its own, to a member of the same kind,
 * is refused: it comes from another process.
 */
function answerAt (queries: Query[], answers: v1.BatchedAnswer__Output[], i: number): v1.BatchedAnswer__Output | string {
  const a = answers[i]
  if (a === undefined) return 'the batch answered fewer calls than it was sent'
  if (!a.same_as) return a
  const j = a.same_as - 1
  const earlier = j < i ? answers[j] : undefined
  const kind = queries[i]?.kind
  if (earlier === undefined || earlier.same_as || kind === undefined || queries[j]?.kind !== kind) return 'a batched answer refers to no earlier answer of its kind'
  const message = answerOf(kind, earlier)
  if (typeof message === 'object' && message !== null) markShared(message)
  sharedAnswers.inc()
  return earlier
}

/** A member's answer → what its own call would have resolved or rejected with, its headers heard first. */
function outcomeOf (q: Query, a: v1.BatchedAnswer__Output | string): Outcome<unknown> {
  if (typeof a === 'string') return { ok: false, error: memberError(status.INTERNAL, a) }
  if (a.headers_sent) q.onHeaders?.(a.headers)
  if (a.code !== status.OK) return { ok: false, error: memberError(a.code, a.message, a.reason, a.details_json) }
  const value = answerOf(q.kind, a)
  return value ? { ok: true, value } : { ok: false, error: memberError(status.INTERNAL, 'a batched call answered without its message') }
}

/** Which calls are coalesced (COALESCE_READS, COALESCE_WRITES). */
export interface Coalesced { reads: boolean, saves: boolean }

/**
 * The objects service's clients with their dominant reads (GetObject, ListObjects, TreeService.ListTree)
 * and saves (SaveObject: POST /objects) coalesced: the reads, and apart from them the saves, of one
 * event-loop turn travel as one CallBatch call, each member carrying its own caller's access token,
 * request id, deadline and trace context; alone in its turn, a call is its own unary call as before.
 * Every other method is the client's own.
 */
export function coalescedCalls (clients: Clients, timeoutMs: number, which: Coalesced): Clients {
  const { objects, tree } = clients
  const recorders = {
    get_object: rpcRecorder('client', 'content.v1.ObjectService/GetObject'),
    list_objects: rpcRecorder('client', 'content.v1.ObjectService/ListObjects'),
    list_tree: rpcRecorder('client', 'content.v1.TreeService/ListTree'),
    save_object: rpcRecorder('client', 'content.v1.ObjectService/SaveObject'),
  }
  const coalescer = new CallCoalescer<Query, unknown>({
    one: (q) => q.alone(),
    many: (queries, deadline, signal) => inBatchSpan('content.v1.ObjectService/CallBatch', queries.map((q) => q.member.traceparent ?? ''), () =>
      // members asking the same are answered once, decoded once and shared (their handlers only read them)
      objects.CallBatch({ calls: queries.map((q) => q.member), refers_same: true }, { timeoutMs: Math.max(1, deadline - Date.now()), signal }))
      .then((res) => queries.map((q, i) => outcomeOf(q, answerAt(queries, res.answers, i))), (err: { code?: number }) => {
        // an objects service of the release before knows no CallBatch (a rolling update): it ran
        // nothing, so each member goes as its own call
        if (err.code !== status.UNIMPLEMENTED) throw err
        return Promise.all(queries.map((q) => q.alone().then((value): Outcome<unknown> => ({ ok: true, value }), (error: unknown): Outcome<unknown> => ({ ok: false, error }))))
      }),
  }, {
    deadlineExceeded: () => memberError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'),
    cancelled: () => memberError(status.CANCELLED, 'Cancelled on client'),
    // single objects apart from lists, and reads apart from saves: a batch answers when its slowest member is done
    groupOf: (q) => GROUPS[q.kind],
    maxBatch: (group) => MAX_BATCH[group] ?? 128,
  })

  function submit<R> (kind: Kind, request: object, options: CallOptions, alone: () => Promise<R>): Promise<R> {
    const deadline = Date.now() + (options.timeoutMs ?? timeoutMs)
    const member: v1.BatchedCall = { request_id: options.requestId ?? '', deadline_ms: deadline, traceparent: activeTraceparent() }
    member[kind] = request
    if (options.userToken !== undefined) member.user_token = options.userToken
    const started = performance.now()
    const record = recorders[kind]
    // alone, the call records itself
    let batched = true
    const own = () => {
      batched = false
      return alone()
    }
    const done = coalescer.submit({ member, kind, onHeaders: options.onHeaders, alone: own }, deadline, options.clientGone) as Promise<R>
    done.then(() => { if (batched) record(status.OK, started) }, (err: { code?: number }) => { if (batched) record(err.code, started) })
    return done
  }

  const reads = which.reads
    ? {
        GetObject: (request: v1.GetObjectRequest, options: CallOptions = {}) => submit('get_object', request, options, () => objects.GetObject(request, options)),
        ListObjects: (request: v1.ListObjectsRequest, options: CallOptions = {}) => submit('list_objects', request, options, () => objects.ListObjects(request, options)),
      }
    : {}
  // a save runs on when its client goes away, as its unary call would: it never leaves its batch
  const saves = which.saves
    ? { SaveObject: (request: v1.SaveObjectRequest, options: CallOptions = {}) => submit('save_object', request, { ...options, clientGone: undefined }, () => objects.SaveObject(request, options)) }
    : {}
  return {
    ...clients,
    objects: Object.assign(Object.create(objects) as typeof objects, reads, saves),
    tree: which.reads
      ? Object.assign(Object.create(tree) as typeof tree, {
        ListTree: (request: v1.ListTreeRequest, options: CallOptions = {}) => submit('list_tree', request, options, () => tree.ListTree(request, options)),
      })
      : tree,
  }
}
