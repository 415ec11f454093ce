// A streamed HTTP/1.1 response read off a plain TCP socket, for the live-streams run's thousand streams.
// Node's HTTP client gives each received chunk to its parser and then to a Readable stream of its own:
// with a thousand streams written at every flush, the reader thread spent about 15 µs a chunk, a fifth of a
// core taken from the system it measures on the same two cores. Here a chunk goes from the socket to the
// body's reader through a decoder of the chunked coding alone (RFC 9112 §7.1): about 7 µs.
import net from 'node:net'

const CR = 0x0d
const LF = 0x0a
const HEAD_END = Buffer.from('\r\n\r\n')
/** A head larger than this is not a gateway's answer. */
const MAX_HEAD = 16 * 1024

/**
 * A decoder of a chunked body: `onBytes` gets the body's bytes as they come (subarrays of the chunks
 * given), `onEnd` runs at the last chunk. Chunk extensions and trailers are skipped; a size that is not
 * hexadecimal throws.
 */
export function chunkedDecoder (onBytes, onEnd) {
  /** 'size': reading a chunk's size line; 'ext': the rest of that line; 'data': `left` bytes of data to come; 'crlf': the CRLF after them; 'done' */
  let state = 'size'
  let size = 0
  let digits = 0
  let left = 0
  return (chunk) => {
    let i = 0
    while (i < chunk.length && state !== 'done') {
      if (state === 'data') {
        const n = Math.min(left, chunk.length - i)
        onBytes(chunk.subarray(i, i + n))
        i += n
        left -= n
        if (left === 0) state = 'crlf'
        continue
      }
      const b = chunk[i++]
      if (state === 'crlf') {
        if (b === LF) state = 'size'
        else if (b !== CR) throw new Error('a chunk is not followed by CRLF')
      } else if (state === 'size' && digits < 12 && hexValue(b) >= 0) {
        size = size * 16 + hexValue(b)
        digits++
      } else if (b === LF) {
        if (digits === 0) throw new Error('a chunk without a size')
        if (size === 0) {
          state = 'done'
          onEnd()
        } else {
          state = 'data'
          left = size
        }
        size = 0
        digits = 0
      } else if (state === 'size' && (b === CR || b === 0x3b || b === 0x20 || b === 0x09)) {
        state = 'ext'
      } else if (state === 'size') {
        throw new Error(`a chunk size is not hexadecimal (byte ${b})`)
      }
    }
  }
}

function hexValue (b) {
  if (b >= 0x30 && b <= 0x39) return b - 0x30
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10
  return -1
}

/**
 * GET `path` on `host:port` over a socket of its own. `onHead(status)` runs once the answer's head has
 * come; the body's bytes then go to `onBytes` (chunked or not, as the head says), and `onEnd(why)` runs
 * once when it ends: the server's last chunk, the socket closed, or an error. Returns the socket (destroy
 * it to close the stream).
 */
export function rawGet ({ host, port, path, headers }, { onHead, onBytes, onEnd }) {
  const socket = net.connect({ host, port })
  socket.setNoDelay(true)
  let ended = false
  const end = (why) => {
    if (ended) return
    ended = true
    onEnd(why)
  }
  let head = Buffer.alloc(0)
  let body = null
  socket.on('connect', () => {
    const lines = Object.entries({ host: `${host}:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('')
    socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`)
  })
  socket.on('data', (chunk) => {
    if (body !== null) return read(chunk)
    head = Buffer.concat([head, chunk])
    const at = head.indexOf(HEAD_END)
    if (at < 0) {
      if (head.length > MAX_HEAD) socket.destroy(new Error('the answer\'s head is too long'))
      return
    }
    const text = head.toString('latin1', 0, at)
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)
    const chunked = /\r\ntransfer-encoding:[ \t]*chunked\r?$/im.test(text)
    body = chunked ? chunkedDecoder(onBytes, () => end('the server ended the body')) : onBytes
    onHead(status)
    const rest = head.subarray(at + HEAD_END.length)
    head = Buffer.alloc(0)
    if (rest.length > 0) read(rest)
  })
  const read = (chunk) => {
    try {
      body(chunk)
    } catch (err) {
      socket.destroy(err)
    }
  }
  socket.on('error', (err) => end(err.message))
  socket.on('close', () => end('the socket closed'))
  return socket
}
