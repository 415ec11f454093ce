import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { REQUEST_ID_HEADER } from '@content/platform'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorBody } from './envelope.js'
import { validHost, validScheme } from './host-header.js'

/** The methods any route answers; a CONNECT is told these. */
const ALLOWED = 'GET, HEAD, POST, PUT, DELETE'

/** The error body of decisions §2 for a request no route saw (`url` empty: none was parsed or trusted). */
function bareErrorBody (status: number, code: string, message: string): string {
  return JSON.stringify(errorBody('', status, code, message))
}

/** A whole HTTP/1.1 answer for a socket with no ServerResponse (the parser refused the request); its request id is new. */
export function rawAnswer (status: number, code: string, message: string, head: boolean, headers: Record<string, string> = {}): string {
  const body = bareErrorBody(status, code, message)
  const lines = Object.entries({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close', 'X-Request-Id': randomUUID(), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`).join('')
  // a HEAD is answered with the headers of the answer only, never its body
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines}\r\n${head ? '' : body}`
}

function answer (res: ServerResponse, status: number, code: string, message: string, head: boolean): void {
  const body = bareErrorBody(status, code, message)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', connection: 'close' })
  res.end(head ? undefined : body)
}

/**
 * The request's id on its answer: set on the ServerResponse itself, so answers written past fastify
 * (hijacked, streamed) carry it too. Called for every request (onRequest) and for those the router
 * refuses before any hook runs (frameworkErrors).
 */
export function stampRequestId (request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.setHeader(REQUEST_ID_HEADER, request.id)
}

/** Why the request's origin (its Host, or what a trusted proxy forwarded) makes no URL, or null. */
function hostProblem (request: FastifyRequest): string | null {
  const { raw } = request
  const host = raw.headers.host
  if (host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) return 'an HTTP/1.1 request needs a Host header'
  if (host !== undefined && !validHost(host)) return 'the Host header must be one host with an optional port'
  // what fastify takes from X-Forwarded-Host and -Proto when the peer is a trusted proxy
  if (request.host !== (host ?? '') && !validHost(request.host)) return 'the X-Forwarded-Host header must end with a host with an optional port'
  if (!validScheme(request.protocol)) return 'the X-Forwarded-Proto header must end with http or https'
  return null
}

/**
 * HTTP edge cases answered in the error shape instead of Node's bare defaults:
 * - every answer carries the request's id (`X-Request-Id`);
 * - `CONNECT` (no route can take a tunnel): 405 with `Allow`;
 * - an HTTP/1.1 request without `Host`, with two, or with one that is no host and port (RFC 9112 §3.2),
 *   or a trusted proxy's X-Forwarded-Host or -Proto that makes no URL: 400;
 * - an `Expect` other than `100-continue` (RFC 9110 §10.1.1): 417;
 * - a connection where nothing moves for the idle timeout while a request is still being received
 *   (a body shorter than its `Content-Length`): 408, and the connection closes. An idle connection with
 *   no request in flight, or one whose answer has begun, is just closed.
 */
export function registerHttpEdges (app: FastifyInstance): void {
  const server: Server = app.server
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => {})
    socket.end(rawAnswer(405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported', false, { Allow: ALLOWED }))
    req.resume()
  })
  app.addHook('onRequest', (request, reply, done) => {
    const { raw } = request
    stampRequestId(request, reply)
    const problem = hostProblem(request)
    if (problem !== null) {
      reply.hijack()
      answer(reply.raw, 400, 'MALFORMED_REQUEST', problem, raw.method === 'HEAD')
      return
    }
    done()
  })
  // Node answers an Expect it does not know with a bare 417 unless someone listens
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader(REQUEST_ID_HEADER, randomUUID())
    answer(res, 417, 'EXPECTATION_FAILED', 'only Expect: 100-continue is supported', req.method === 'HEAD')
  })
  server.on('timeout', (socket: Socket) => {
    // Node keeps the response of the request in progress on its socket; nothing to answer when there is none
    const res = (socket as { _httpMessage?: ServerResponse })._httpMessage
    if (res && !res.headersSent && !res.req.complete) {
      answer(res, 408, 'REQUEST_TIMEOUT', 'the request was not received in time', res.req.method === 'HEAD')
      socket.destroySoon()
    } else {
      socket.destroy()
    }
  })
}
