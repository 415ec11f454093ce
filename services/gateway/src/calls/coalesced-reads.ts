import { status } from '@grpc/grpc-js'
import { activeTraceparent, inBatchSpan, memberError, rpcRecorder, type CallOptions } from '@content/platform'
import type { v1 } from '@content/protos'
import type { Clients } from '../http/context.js'
import { ReadCoalescer, type Outcome } from './read-coalescer.js'

type Kind = 'get_object' | 'list_objects' | 'list_tree'

/** One read waiting for its turn's batch: its member message, its own call (a batch of one) and what its caller listens to. */
interface Query {
  member: v1.BatchedRead
  kind: Kind
  onHeaders: CallOptions['onHeaders']
  alone: () => Promise<unknown>
}

const answerOf = (kind: Kind, a: v1.BatchedAnswer__Output): unknown => (kind === 'get_object' ? a.get_object : a.list)

/** A member's answer → what its own call would have resolved or rejected with, its headers heard first. */
function outcomeOf (q: Query, a: v1.BatchedAnswer__Output | undefined): Outcome<unknown> {
  if (a === undefined) return { ok: false, error: memberError(status.INTERNAL, 'the batch answered fewer reads than it was sent') }
  if (a.headers_sent) q.onHeaders?.(a.headers)
  if (a.code !== status.OK) return { ok: false, error: memberError(a.code, a.message, a.reason, a.details_json) }
  const value = answerOf(q.kind, a)
  return value ? { ok: true, value } : { ok: false, error: memberError(status.INTERNAL, 'a batched read answered without its message') }
}

/**
 * The objects service's clients with their dominant reads (GetObject, ListObjects, TreeService.ListTree)
 * coalesced: the reads of one event-loop turn travel as one ReadBatch call, each member carrying its own
 * caller's access token, request id, deadline and trace context; alone in its turn, a read is its own
 * unary call as before. Every other method is the client's own.
 */
export function coalescedReads (clients: Clients, timeoutMs: number): Clients {
  const { objects, tree } = clients
  const recorders = {
    get_object: rpcRecorder('client', 'content.v1.ObjectService/GetObject'),
    list_objects: rpcRecorder('client', 'content.v1.ObjectService/ListObjects'),
    list_tree: rpcRecorder('client', 'content.v1.TreeService/ListTree'),
  }
  const coalescer = new ReadCoalescer<Query, unknown>({
    one: (q) => q.alone(),
    many: (queries, deadline, signal) => inBatchSpan('content.v1.ObjectService/ReadBatch', queries.map((q) => q.member.traceparent ?? ''), () =>
      objects.ReadBatch({ reads: queries.map((q) => q.member) }, { timeoutMs: Math.max(1, deadline - Date.now()), signal }))
      .then((res) => queries.map((q, i) => outcomeOf(q, res.answers[i]))),
  }, {
    deadlineExceeded: () => memberError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'),
    cancelled: () => memberError(status.CANCELLED, 'Cancelled on client'),
    // single objects apart from lists: a batch answers when its slowest read is done
    groupOf: (q) => q.kind === 'get_object' ? 'object' : 'list',
  })

  function submit<R> (kind: Kind, request: object, options: CallOptions, alone: () => Promise<R>): Promise<R> {
    const deadline = Date.now() + (options.timeoutMs ?? timeoutMs)
    const member: v1.BatchedRead = {
      request_id: options.requestId ?? '', deadline_ms: deadline, traceparent: activeTraceparent(), [kind]: request,
      ...(options.userToken === undefined ? {} : { user_token: options.userToken }),
    }
    const started = performance.now()
    const record = recorders[kind]
    // alone, the read's own call records itself
    let batched = true
    const own = () => {
      batched = false
      return alone()
    }
    const done = coalescer.submit({ member, kind, onHeaders: options.onHeaders, alone: own }, deadline, options.clientGone) as Promise<R>
    done.then(() => { if (batched) record(status.OK, started) }, (err: { code?: number }) => { if (batched) record(err.code, started) })
    return done
  }

  return {
    ...clients,
    objects: Object.assign(Object.create(objects) as typeof objects, {
      GetObject: (request: v1.GetObjectRequest, options: CallOptions = {}) => submit('get_object', request, options, () => objects.GetObject(request, options)),
      ListObjects: (request: v1.ListObjectsRequest, options: CallOptions = {}) => submit('list_objects', request, options, () => objects.ListObjects(request, options)),
    }),
    tree: Object.assign(Object.create(tree) as typeof tree, {
      ListTree: (request: v1.ListTreeRequest, options: CallOptions = {}) => submit('list_tree', request, options, () => tree.ListTree(request, options)),
    }),
  }
}
