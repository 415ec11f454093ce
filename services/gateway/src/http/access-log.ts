import { infoLines, redactUrl, type Logger } from '@content/platform'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** why the request failed, for its access line: set where the failure is described */
    failure: Failure | undefined
    /** its access line is written (once: a request whose client left is logged where that is found) */
    accessLogged: boolean
  }
  interface FastifyInstance {
    /** writes one request's access line */
    accessLog: AccessLog
  }
}

/** A failed request's reason (decisions §2) and, for a failure of the system or the connection, its cause in a few words. */
export interface Failure {
  reason: string
  cause?: string
}

/** One answered request: what its access line says. */
export interface Access {
  reqId: string
  method: string
  /** as the client sent it; redacted here */
  url: string
  status: number
  /** unknown for a request whose client left before its answer */
  ms: number | undefined
  /** the body's length, when the answer declared it */
  bytes: number | undefined
  failure?: Failure | undefined
}

/** Writes one request's access line; a no-op below info. */
export type AccessLog = (access: Access) => void

const round = (ms: number) => Math.round(ms * 100) / 100

/**
 * The access log: one line per answered request, at info, written when the answer is done (fastify's
 * own "incoming request" and "request completed" lines are off: two lines, each through the request
 * serializer and the redaction paths, cost more than the cached read they described). The URL is
 * redacted once, here; every other field is the gateway's own (an id, a code, a number, a failure's
 * cause in a few words), never an object of the caller's, so the line is written as JSON here
 * (`infoLines`), without pino's walk of an object. A field without a value is left out, as pino does.
 */
export function accessLog (log: Logger): AccessLog {
  const write = infoLines(log, 'request')
  if (write === null) return () => {}
  return ({ reqId, method, url, status, ms, bytes, failure }) => {
    let fields = `"reqId":${JSON.stringify(reqId)},"method":${JSON.stringify(method)},"url":${JSON.stringify(redactUrl(url))}${numberField('status', status)}`
    if (ms !== undefined) fields += numberField('ms', round(ms))
    if (bytes !== undefined) fields += numberField('bytes', bytes)
    if (failure !== undefined) fields += `,"reason":${JSON.stringify(failure.reason)}${failure.cause === undefined ? '' : `,"cause":${JSON.stringify(failure.cause)}`}`
    write(fields)
  }
}

/** `,"key":n`; nothing for a number JSON cannot hold (a header that was not one). */
const numberField = (key: string, n: number): string => (Number.isFinite(n) ? `,"${key}":${n}` : '')

/** The declared length of an answer, when it has one (a stream's is unknown until it ends). */
export function declaredBytes (reply: FastifyReply): number | undefined {
  const length = reply.getHeader('content-length') ?? reply.raw.getHeader('content-length')
  return length === undefined ? undefined : Number(length)
}

/** Logs every request fastify answers, the probes', the not-found handler's and the refused ones' included. */
export function logRequests (app: FastifyInstance, write: AccessLog): void {
  app.decorateRequest('failure', undefined)
  app.decorateRequest('accessLogged', false)
  app.decorate('accessLog', write)
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!request.accessLogged) {
      request.accessLogged = true
      write({ reqId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime, bytes: declaredBytes(reply), failure: request.failure })
    }
    done()
  })
}

/**
 * The access line of a request whose client went away, written when that is found: its answer will not
 * finish, so fastify's onResponse may never run for it.
 */
export function logAbandoned (request: FastifyRequest, status: number): void {
  if (request.accessLogged) return
  request.accessLogged = true
  request.server.accessLog({ reqId: request.id, method: request.method, url: request.url, status, ms: undefined, bytes: undefined, failure: request.failure })
}
