import type { Socket } from 'node:net'
import { rawAnswer } from './http-edges.js'

/** Whether the bytes the parser refused began a HEAD request (its answer must have no body). */
const isHead = (err: { rawPacket?: unknown }) => Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD '

/**
 * Requests Node's HTTP parser rejects before fastify sees them (a header block past the size limit, a
 * broken request line, headers or a body that did not arrive in time) still get the error body of
 * decisions §2, without a body for a HEAD. No URL was parsed, so `url` is empty.
 */
export function clientErrorResponse (err: NodeJS.ErrnoException & { rawPacket?: unknown }): string | undefined {
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return undefined
  const head = isHead(err)
  if (err.code === 'HPE_HEADER_OVERFLOW') return rawAnswer(431, 'HEADERS_TOO_LARGE', 'the request line and headers are too large', head)
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawAnswer(408, 'REQUEST_TIMEOUT', 'the request was not received in time', head)
  return rawAnswer(400, 'MALFORMED_REQUEST', 'the request could not be parsed', head)
}

export function handleClientError (err: Error, socket: Socket): void {
  const response = clientErrorResponse(err as NodeJS.ErrnoException)
  // an answer already begun on this connection cannot be followed by another
  const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (response !== undefined && socket.writable && !started) socket.end(response)
  else socket.destroy()
}
