import { once } from 'node:events'
import * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { DomainError, toServiceError } from '../errors.js'
import { callMetadata, type CallOptions } from './client.js'

/**
 * Streaming calls, both ends. Like `wrapUnary`, these are the only places that touch gRPC stream
 * callbacks and events: a service writes an async function (client stream) or an async generator
 * (server stream); a DomainError becomes its status plus reason, anything else INTERNAL and a log line.
 */

function failure (err: unknown, method: string, log: Logger): Partial<grpc.ServiceError> {
  if (err instanceof DomainError) {
    log.debug({ rpc: method, code: err.code, reason: err.reason }, 'rpc')
    return toServiceError(err)
  }
  log.error({ rpc: method, code: 'INTERNAL', err }, 'rpc failed')
  return { code: grpc.status.INTERNAL, details: 'internal error' }
}

/** Aborted when the client cancels the call or its deadline passes. */
function cancellation (call: { once(event: 'cancelled', listener: () => void): unknown }): AbortSignal {
  const controller = new AbortController()
  call.once('cancelled', () => controller.abort(new DomainError('REQUEST_CANCELLED', 'the caller cancelled the call')))
  return controller.signal
}

export type ClientStreamImpl<Req, Res> = (messages: AsyncIterable<Req>, signal: AbortSignal, call: grpc.ServerReadableStream<Req, Res>) => Promise<Res>

/**
 * A client-streaming method: `impl` reads the messages (stopping early is fine: the call is answered at
 * once, the client sees the status and stops sending) and resolves with the response.
 */
export function clientStreamHandler<Req, Res> (method: string, impl: ClientStreamImpl<Req, Res>, log: Logger): grpc.handleClientStreamingCall<Req, Res> {
  return (call, callback) => {
    const signal = cancellation(call)
    let answered = false
    const answer = (err: Partial<grpc.ServiceError> | null, response?: Res) => {
      if (answered) return
      answered = true
      if (err) callback(err)
      else callback(null, response)
    }
    impl(call, signal, call).then(
      (response) => answer(null, response),
      (err: unknown) => answer(signal.aborted ? { code: grpc.status.CANCELLED, details: 'cancelled' } : failure(err, method, log)),
    )
  }
}

export type ServerStreamImpl<Req, Res> = (request: Req, signal: AbortSignal, call: grpc.ServerWritableStream<Req, Res>) => AsyncIterable<Res>

/**
 * A server-streaming method: every message `impl` yields is written, waiting for the client to drain
 * when its buffer is full; a cancelled call stops the generator. An error ends the call with its status,
 * also after messages were sent.
 */
export function serverStreamHandler<Req, Res> (method: string, impl: ServerStreamImpl<Req, Res>, log: Logger): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const signal = cancellation(call)
    void (async () => {
      try {
        for await (const message of impl(call.request, signal, call)) {
          if (signal.aborted) return
          if (!call.write(message)) await once(call, 'drain', { signal })
        }
        if (!signal.aborted) call.end()
      } catch (err) {
        if (!signal.aborted) call.emit('error', failure(err, method, log))
      }
    })()
  }
}

type ClientStreamStart<Req, Res> = (metadata: grpc.Metadata, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null, response?: Res) => void) => grpc.ClientWritableStream<Req>
type ServerStreamStart<Req, Res> = (request: Req, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<Res>

/**
 * Opens a client stream with a deadline. Write the messages to `stream` (it is a Writable in object
 * mode: pipe into it to keep backpressure) and end it; `response` settles with the answer or the error,
 * which may come before the client has finished writing.
 */
export function openClientStream<Req, Res> (start: ClientStreamStart<Req, Res>, options: CallOptions & { timeoutMs: number }):
{ stream: grpc.ClientWritableStream<Req>, response: Promise<Res> } {
  let stream!: grpc.ClientWritableStream<Req>
  const response = new Promise<Res>((resolve, reject) => {
    stream = start(callMetadata(options), { deadline: Date.now() + options.timeoutMs }, (err, res) => {
      if (err) reject(err)
      else resolve(res as Res)
    })
  })
  // a write after the server answered fails on the stream; the answer itself arrives through `response`,
  // which a caller may await only after it finished writing
  stream.on('error', () => {})
  response.catch(() => {})
  return { stream, response }
}

/** Opens a server stream with a deadline; iterate it, or `cancel()` it to stop early. */
export function openServerStream<Req, Res> (start: ServerStreamStart<Req, Res>, request: Req, options: CallOptions & { timeoutMs: number }): grpc.ClientReadableStream<Res> {
  return start(request, callMetadata(options), { deadline: Date.now() + options.timeoutMs })
}
