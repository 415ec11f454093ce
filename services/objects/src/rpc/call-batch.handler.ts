import * as grpc from '@grpc/grpc-js'
import {
  DomainError, MEMBER_INTERNAL, MEMBER_OK, callerOfToken, counter, endMemberSpan, memberFailure, memberSpan, rpcRecorder,
  type MemberStatus, type UnaryImpl,
} from '@content/platform'
import type { v1 } from '@content/protos'
import { coalescibleReads } from './coalescible-reads.js'
import type { ObjectsServerDeps } from './deps.js'
import { oneAtATime } from './one-at-a-time.js'
import type { HeaderSink } from './read-deps.js'
import { sharedReads } from './shared-reads.js'
import { saveObjectMethod } from './writes.handlers.js'

/** The unary methods a batch member may name, as their own calls run them. */
type Methods = ReturnType<typeof coalescibleReads> & { SaveObject: ReturnType<typeof saveObjectMethod> }
type Answer = v1.BatchedAnswer

/**
 * Each kind of member: the method its own call would name (metrics, logs, spans), how it is served, and
 * whether members of a batch may share its work (reads may; a save never).
 */
const KINDS = {
  get_object: { path: 'content.v1.ObjectService/GetObject', shares: true, serve: (r: Methods, req: v1.GetObjectRequest__Output, sink: HeaderSink) => r.GetObject(req, sink).then((get_object): Partial<Answer> => ({ get_object })) },
  list_objects: { path: 'content.v1.ObjectService/ListObjects', shares: true, serve: (r: Methods, req: v1.ListObjectsRequest__Output, sink: HeaderSink) => r.ListObjects(req, sink).then((list): Partial<Answer> => ({ list })) },
  list_tree: { path: 'content.v1.TreeService/ListTree', shares: true, serve: (r: Methods, req: v1.ListTreeRequest__Output, sink: HeaderSink) => r.ListTree(req, sink).then((list): Partial<Answer> => ({ list })) },
  save_object: { path: 'content.v1.ObjectService/SaveObject', shares: false, serve: (r: Methods, req: v1.SaveObjectRequest__Output, sink: HeaderSink) => r.SaveObject(req, sink).then((save_object): Partial<Answer> => ({ save_object })) },
} as const

type Kind = keyof typeof KINDS
const RECORDERS = Object.fromEntries(Object.entries(KINDS).map(([kind, k]) => [kind, rpcRecorder('server', k.path)])) as Record<Kind, ReturnType<typeof rpcRecorder>>

/** How much coalescing happens: of the calls rpc_server_call_duration_seconds counts, those that came as members of a batch. */
const batchedCalls = counter({
  name: 'content_batched_calls_total',
  help: 'Calls answered as members of a CallBatch (also counted in rpc_server_call_duration_seconds under their own method).',
  labelNames: ['rpc_method'] as const,
})
const BATCHED = Object.fromEntries(Object.entries(KINDS).map(([kind, k]) => [kind, batchedCalls.labels(k.path.slice(k.path.lastIndexOf('/') + 1))])) as Record<Kind, { inc(): void }>

const kindOf = (m: v1.BatchedCall__Output): Kind | undefined =>
  m.get_object ? 'get_object' : m.list_objects ? 'list_objects' : m.list_tree ? 'list_tree' : m.save_object ? 'save_object' : undefined

/** The reads of a batch computed so far, by what they ask, and whether the sender takes references to them (refers_same). */
interface Same { runs: Map<string, { index: number, outcome: Promise<Run> }>, refer: boolean }

/** A member computed (a read once for the members that asked it). */
type Run = { ok: true, answer: Partial<Answer>, headers: Record<string, string> | undefined } | { ok: false, err: unknown, headers: Record<string, string> | undefined }

/** What a member's read asks of the batch's own call: its deadline and whether its sender cancelled it. */
type Batch = Pick<grpc.ServerUnaryCall<unknown, unknown>, 'getDeadline' | 'cancelled'>

const statusOnly = (s: MemberStatus): Answer => ({ ...s, headers: {}, headers_sent: false })

/** Whether every member asks for a page (ListTree, ListObjects): such batches are worked on one at a time. */
const pagesOnly = (members: v1.BatchedCall__Output[]): boolean => members.every((m) => {
  const kind = kindOf(m)
  return kind === 'list_tree' || kind === 'list_objects'
})

/**
 * ObjectService.CallBatch: the reads, or the saves, one gateway received in one turn. The batch call's own
 * credentials are the gate's (its service token); each member's access token is verified here as its own
 * call's would be (verifications are cached), and the member is served by its unary method's code. Reads
 * share a store view (`sharedReads`), and members that ask the same read with the same token share one
 * computation. Saves share nothing but their commit: they run side by side, so the store commits them
 * in one transaction (commits.sqlite.ts), each in a savepoint of its own. A member past its deadline
 * answers DEADLINE_EXCEEDED and is not run; a member's failure is its own answer, never the batch's. The
 * answer leaves once what every member saw or wrote is durable (the service's answeredWhenDurable wraps
 * this method as it wraps the unary ones).
 */
export function callBatchHandler (deps: ObjectsServerDeps): UnaryImpl<v1.CallBatchRequest__Output, v1.CallBatchResponse> {
  const verifyUser = deps.rpc.identity.user
  const log = deps.log
  const save = saveObjectMethod(deps)
  const direct: Methods = { ...coalescibleReads(deps.reads), SaveObject: save }

  /** One member computed: its answer or error, and the headers it sent. Never rejects. */
  async function run (methods: Methods, kind: Kind, m: v1.BatchedCall__Output, batch: Batch): Promise<Run> {
    let headers: Record<string, string> | undefined
    const sink: HeaderSink = {
      sendMetadata (metadata) {
        headers = {}
        for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') headers[key] = value
      },
      // the member's own deadline, and the batch's cancellation: its read stops when either says so
      getDeadline: () => (m.deadline_ms > 0 ? m.deadline_ms : batch.getDeadline()),
      get cancelled () { return batch.cancelled },
    }
    try {
      const request = m[kind] as NonNullable<v1.BatchedCall__Output[Kind]>
      // the member's caller is the one its token names, whatever the sender put there (as callGate does)
      request.caller = await callerOfToken(m.user_token, verifyUser)
      const answer = await (KINDS[kind].serve as (r: Methods, q: typeof request, s: HeaderSink) => Promise<Partial<Answer>>)(methods, request, sink)
      return { ok: true, answer, headers }
    } catch (err) {
      return { ok: false, err, headers }
    }
  }

  async function serve (methods: Methods, m: v1.BatchedCall__Output, index: number, same: Same | null, batch: Batch): Promise<Answer> {
    const started = performance.now()
    const kind = kindOf(m)
    if (kind === undefined) return statusOnly({ ...MEMBER_INTERNAL, code: grpc.status.INVALID_ARGUMENT, message: 'a batched call names no method' })
    const { path } = KINDS[kind]
    const record = RECORDERS[kind]
    BATCHED[kind].inc()
    if (m.deadline_ms > 0 && Date.now() >= m.deadline_ms) {
      record(grpc.status.DEADLINE_EXCEEDED, started)
      return statusOnly({ ...MEMBER_INTERNAL, code: grpc.status.DEADLINE_EXCEEDED, message: 'Deadline exceeded' })
    }
    const span = memberSpan(path, m.traceparent)
    // members asking the same thing with the same token are answered by one computation: they run at
    // the same moment, so one answer is what each of their calls would have got
    let outcome: Promise<Run>
    // the member whose answer this one's is, when the sender takes a reference to it (refers_same)
    let first: number | undefined
    if (same === null || !KINDS[kind].shares) outcome = run(methods, kind, m, batch)
    else {
      const key = `${kind}\u0000${m.user_token ?? '\u0000'}\u0000${JSON.stringify(m[kind])}`
      const known = same.runs.get(key)
      outcome = known?.outcome ?? run(methods, kind, m, batch)
      if (known === undefined) same.runs.set(key, { index, outcome })
      else if (same.refer) first = known.index
    }
    const answer = answerOf(kind, m, await outcome, started, span)
    // its status, headers and message are the first's: the sender decodes them once
    return first === undefined ? answer : { ...MEMBER_OK, headers: {}, headers_sent: false, same_as: first + 1 }
  }

  /** A member's answer from its computation, logged, counted and traced as its own call would be. */
  function answerOf (kind: Kind, m: v1.BatchedCall__Output, done: Run, started: number, span: ReturnType<typeof memberSpan>): Answer {
    const { path } = KINDS[kind]
    const record = RECORDERS[kind]
    const ms = Math.round((performance.now() - started) * 100) / 100
    const headers = { headers: done.headers ?? {}, headers_sent: done.headers !== undefined }
    if (done.ok) {
      // each member logs its line as its own call would (wrapUnary), marked as batched
      if (log.isLevelEnabled('debug')) log.debug({ rpc: path, code: 'OK', ms, requestId: m.request_id, batched: true }, 'rpc')
      record(grpc.status.OK, started)
      endMemberSpan(span, grpc.status.OK)
      return { ...MEMBER_OK, ...headers, ...done.answer }
    }
    let status: MemberStatus
    if (done.err instanceof DomainError) {
      log.debug({ rpc: path, code: done.err.code, reason: done.err.reason, ms, requestId: m.request_id, batched: true }, 'rpc')
      status = memberFailure(done.err)
    } else {
      log.error({ rpc: path, code: 'INTERNAL', ms, err: done.err, requestId: m.request_id, batched: true }, 'rpc failed')
      status = MEMBER_INTERNAL
    }
    record(status.code, started)
    endMemberSpan(span, status.code)
    return { ...status, ...headers }
  }

  /**
   * On SQLite, whose reads run on this thread, batches of pages are worked on one at a time, each after
   * the one before has answered. A page costs the service about half a millisecond; batches worked on side
   * by side (their reads interleaved) answered all together, so the gateway had nothing to format while the
   * service worked, and the reverse: profiled, the two were busy at the same moment 8 % of the time. One at
   * a time, the gateway formats a batch's pages while the service reads the next (loadtest/README.md,
   * "Batches of pages, one at a time"). PostgreSQL's and MongoDB's reads run in their servers, where batches
   * side by side overlap by themselves: one at a time lost a fifth there. Single objects are too short for
   * it to pay; saves wait for their commit, which batches share.
   */
  const pages = deps.store.kind === 'sqlite' ? oneAtATime() : null

  return (req, call) => (pages !== null && pagesOnly(req.calls) ? pages(() => answer(req, call)) : answer(req, call))

  async function answer (req: v1.CallBatchRequest__Output, call: Batch): Promise<v1.CallBatchResponse> {
    const members = req.calls
    // a batch of one has nothing to share
    if (members.length < 2) return { answers: await Promise.all(members.map((m, i) => serve(direct, m, i, null, call))) }
    const shared: Methods = { ...coalescibleReads({ ...deps.reads, store: sharedReads(deps.reads.store) }), SaveObject: save }
    const same: Same = { runs: new Map(), refer: req.refers_same }
    return { answers: await Promise.all(members.map((m, i) => serve(shared, m, i, same, call))) }
  }
}
