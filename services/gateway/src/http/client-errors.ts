import type { Socket } from 'node:net'

/**
 * Requests Node's HTTP parser rejects before fastify sees them (a header block past the size limit, a
 * broken request line) still get the error body of decisions §2. No URL was parsed, so `url` is empty.
 */
export function clientErrorResponse (err: NodeJS.ErrnoException): string | undefined {
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return undefined
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW'
  const status = tooLarge ? 431 : 400
  const body = JSON.stringify({
    error: {
      status,
      code: tooLarge ? 'HEADERS_TOO_LARGE' : 'MALFORMED_REQUEST',
      message: tooLarge ? 'the request line and headers are too large' : 'the request could not be parsed',
      details: null,
      more_info: null,
      url: '',
    },
  })
  return `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

export function handleClientError (err: Error, socket: Socket): void {
  const response = clientErrorResponse(err as NodeJS.ErrnoException)
  if (response !== undefined && socket.writable) socket.end(response)
  else socket.destroy()
}
