import type { Readable } from 'node:stream'
import type { v1 } from '@content/protos'
import type { ClientWritableStream } from '@grpc/grpc-js'
import { clientGone } from './file-stream.js'

export interface Forwarding {
  /** settles when the whole body was written and the call's stream ended; rejects when the client went away */
  done: Promise<void>
  /** stops reading the body at once; it is left paused and unread, never destroyed (the answer still has to go out) */
  stop(): void
}

/**
 * Writes the request body to an Upload call as `{chunk}` messages, in order, pausing the body while the
 * call's buffer is full: the gateway never holds more than a few chunks of an upload.
 * A client that goes away cancels the call.
 */
export function forwardBody (body: Readable, call: ClientWritableStream<v1.UploadPart>, signal: AbortSignal): Forwarding {
  const listeners: Array<() => void> = []
  const stop = () => {
    for (const remove of listeners.splice(0)) remove()
    body.pause()
  }
  const done = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (!call.write({ chunk })) body.pause()
    }
    const onDrain = () => body.resume()
    const onEnd = () => {
      stop()
      call.end()
      resolve()
    }
    const onGone = () => {
      stop()
      call.cancel()
      reject(clientGone())
    }
    if (signal.aborted) return onGone()
    body.on('data', onData).once('end', onEnd).once('error', onGone)
    call.on('drain', onDrain)
    signal.addEventListener('abort', onGone, { once: true })
    listeners.push(
      () => body.off('data', onData).off('end', onEnd).off('error', onGone),
      () => call.off('drain', onDrain),
      () => signal.removeEventListener('abort', onGone),
    )
  })
  // the caller may stop (the poster service answered first) without ever awaiting `done`
  done.catch(() => {})
  return { done, stop }
}
