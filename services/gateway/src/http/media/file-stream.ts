import { Transform, addAbortSignal, type Readable } from 'node:stream'
import type { v1 } from '@content/protos'
import type { ClientReadableStream } from '@grpc/grpc-js'
import { HttpError } from '../errors.js'

/** GetOriginal / GetThumbnail as the client sees them: the header first, then the bytes. */
export type FileCall = ClientReadableStream<v1.FileChunk__Output>

/** The client closed the connection: there is nobody left to answer. */
export const clientGone = (): HttpError => new HttpError('REQUEST_CANCELLED', 'the client closed the connection')

const noop = () => {}

/**
 * Waits for the first message, which must be the header. An error before it rejects with the
 * backend's error (answered as JSON); the stream is left paused for `fileBody`.
 */
export function readHeader (call: FileCall, signal: AbortSignal): Promise<v1.FileHeader__Output> {
  // grpc-js emits a failed status as an 'error' event: without a listener at every moment it would crash
  call.on('error', noop)
  return new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      call.off('data', onData).off('error', onError).off('end', onEnd)
      signal.removeEventListener('abort', onAbort)
      finish()
    }
    const onData = (message: v1.FileChunk__Output) => settle(() => {
      call.pause()
      if (message.header) resolve(message.header)
      else reject(new Error('the file stream did not start with a header'))
    })
    const onError = (err: unknown) => settle(() => reject(err))
    const onEnd = () => settle(() => reject(new Error('the file stream ended before its header')))
    const onAbort = () => settle(() => {
      call.cancel()
      reject(clientGone())
    })
    if (signal.aborted) return onAbort()
    call.on('data', onData).on('error', onError).on('end', onEnd)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * The bytes after the header as a byte stream, with backpressure (the call is paused while the client
 * is slow). Exactly `size` bytes or an error: a failed or short stream, more bytes than announced or a
 * second header destroy it (the response is then cut, never padded or overrun). Closing it, for any
 * reason, cancels the call.
 */
export function fileBody (call: FileCall, size: number, signal: AbortSignal): Readable {
  let sent = 0
  const body = new Transform({
    writableObjectMode: true,
    transform (message: v1.FileChunk__Output, _encoding, done) {
      if (message.header || !message.chunk) return done(new Error('the file stream sent a second header'))
      sent += message.chunk.length
      if (sent > size) return done(new Error('the file stream sent more bytes than its header announced'))
      done(null, message.chunk)
    },
    flush (done) {
      done(sent === size ? null : new Error(`the file stream ended after ${sent} of ${size} bytes`))
    },
  })
  call.on('error', (err: Error) => body.destroy(err))
  body.once('close', () => call.cancel())
  addAbortSignal(signal, body)
  call.pipe(body)
  return body
}

/** A whole (small) body in memory. */
export async function readAll (body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
