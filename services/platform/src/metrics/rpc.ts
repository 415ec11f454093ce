import { status, type handleClientStreamingCall, type ServerWritableStream, type UntypedHandleCall } from '@grpc/grpc-js'
import type { DurationChild } from './duration-histogram.js'
import { requestDurations } from './registry.js'

const labelNames = ['rpc_system', 'rpc_service', 'rpc_method', 'rpc_grpc_status_code'] as const

const serverCalls = requestDurations({
  name: 'rpc_server_call_duration_seconds',
  help: 'Duration of gRPC calls this process answered, from the handler starting to its answer.',
  labelNames,
})

const clientCalls = requestDurations({
  name: 'rpc_client_call_duration_seconds',
  help: 'Duration of unary gRPC calls this process made, until the answer or error arrived.',
  labelNames,
})

/** Ends one call: its gRPC status code and the `performance.now()` it started at. */
export type RpcRecorder = (code: number | undefined, startedMs: number) => void

/**
 * A recorder for one method (`pkg.Service/Method` or a definition's `/pkg.Service/Method` path), made when
 * the handler or client is built; its children are made once per status code.
 */
export function rpcRecorder (side: 'server' | 'client', path: string): RpcRecorder {
  const metric = side === 'server' ? serverCalls : clientCalls
  const cut = path.lastIndexOf('/')
  const service = path.slice(path.startsWith('/') ? 1 : 0, cut)
  const method = path.slice(cut + 1)
  const byCode: Array<DurationChild | undefined> = []
  return (code, startedMs) => {
    // a failure without a numeric status (not from grpc-js) is UNKNOWN
    const c = typeof code === 'number' && code >= 0 && code <= 16 ? code : status.UNKNOWN
    let child = byCode[c]
    if (child === undefined) { child = metric.labels('grpc', service, method, String(c)); byCode[c] = child }
    child.observe((performance.now() - startedMs) / 1000)
  }
}

/**
 * A streaming handler whose calls are recorded when they end. A client stream answers through its
 * callback; a server stream ends with 'finish' (its status sent: OK, or what an 'error' carried) or
 * 'cancelled'. Only listeners are added: what the handler does is unchanged.
 */
export function recordedStream (requestStream: boolean, responseStream: boolean, handler: UntypedHandleCall, record: RpcRecorder): UntypedHandleCall {
  if (requestStream && !responseStream) {
    const fn = handler as handleClientStreamingCall<unknown, unknown>
    const recorded: handleClientStreamingCall<unknown, unknown> = (call, callback) => {
      const started = performance.now()
      fn(call, (err, ...rest) => {
        record(err ? err.code : status.OK, started)
        callback(err, ...rest)
      })
    }
    return recorded
  }
  const fn = handler as (call: ServerWritableStream<unknown, unknown>) => void
  return ((call: ServerWritableStream<unknown, unknown>) => {
    const started = performance.now()
    let code: number | undefined = status.OK
    let ended = false
    const end = (c: number | undefined) => {
      if (ended) return
      ended = true
      record(c, started)
    }
    call.on('error', (err: { code?: number }) => { code = err.code })
    call.once('finish', () => end(code))
    call.once('cancelled', () => end(status.CANCELLED))
    fn(call)
  }) as UntypedHandleCall
}
