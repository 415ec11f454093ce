import type { ServerResponse } from 'node:http'
import type { RequestClient } from './context.js'

/**
 * The client of a request, gone when the connection closes (or has closed) before the answer was sent
 * completely. Made for every request, so it listens to the response itself; the AbortSignal that
 * streaming handlers pass on is made only when one asks for it.
 */
export class ResponseClient implements RequestClient {
  private abortSignal?: AbortSignal
  constructor (private readonly res: ServerResponse) {}

  get gone (): boolean {
    return (this.res.closed || this.res.destroyed) && !this.res.writableFinished
  }

  onGone (listener: () => void): () => void {
    const res = this.res
    const closed = () => { if (!res.writableFinished) listener() }
    res.once('close', closed)
    return () => { res.off('close', closed) }
  }

  get signal (): AbortSignal {
    if (this.abortSignal === undefined) {
      const controller = new AbortController()
      if (this.gone) controller.abort()
      else this.onGone(() => controller.abort())
      this.abortSignal = controller.signal
    }
    return this.abortSignal
  }
}
