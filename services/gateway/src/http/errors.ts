import { status as grpcStatus } from '@grpc/grpc-js'
import { httpStatusOf, type ErrorCode } from '@content/api-schema'
import { toTransportError, type ErrorDetails, present } from '@content/platform'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { logAbandoned } from './access-log.js'
import { errorBody, type ErrorBody } from './envelope.js'
import { FILE_HEADER_NAMES } from './media/file-headers.js'
import { closeInStages } from './staged-close.js'

/** An answer the gateway decides itself (routing, limits, input shape): a code of the catalogue, which gives its status. */
export class HttpError extends Error {
  readonly status: number
  constructor (
    readonly reason: ErrorCode,
    message: string,
    readonly details: ErrorDetails = null,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
    this.name = 'HttpError'
    this.status = httpStatusOf(reason)
  }
}

export interface DescribedError {
  status: number
  reason: string
  message: string
  details: ErrorDetails
  headers: Record<string, string>
}

/** Messages for answers whose cause must not reach clients (5xx) or arrived without one. */
const GENERIC: Readonly<Record<number, string>> = {
  400: 'malformed request', 401: 'not authorized', 403: 'permission denied', 404: 'not found',
  409: 'conflict', 413: 'request body too large', 415: 'unsupported media type', 429: 'too many requests',
  499: 'request cancelled', 500: 'internal error', 501: 'not implemented', 503: 'a backend service is unavailable',
  504: 'a backend service did not answer in time',
}

/** fastify's own errors (body parsing, limits) → our reasons. */
const FASTIFY_REASONS: Readonly<Record<string, [number, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'MALFORMED_REQUEST'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'MALFORMED_JSON'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'MALFORMED_JSON'],
  FST_ERR_BAD_URL: [400, 'MALFORMED_REQUEST'],
}

function isFastifyError (err: unknown): err is FastifyError {
  return err instanceof Error && typeof (err as FastifyError).code === 'string' && (err as FastifyError).code.startsWith('FST_')
}

/**
 * A body that could not be read: the client closed the connection mid-body or broke its framing (a bad
 * chunk size). fastify marks such stream errors with a 4xx `statusCode`.
 */
function isUnreadableBody (err: unknown): err is Error & { statusCode: number } {
  const code = (err as { statusCode?: unknown } | null)?.statusCode
  return err instanceof Error && typeof code === 'number' && code >= 400 && code < 500
}

/**
 * Headers a backend's details imply: Retry-After for a limit or a busy service (429, 503), and the
 * size of the file a 416 refers to (RFC 9110 §15.5.17).
 */
function transportHeaders (status: number, details: ErrorDetails): Record<string, string> {
  const headers: Record<string, string> = {}
  if (!details || typeof details !== 'object') return headers
  const { retry_after: retryAfter, total_size: totalSize } = details
  if ((status === 429 || status === 503) && typeof retryAfter === 'number' && Number.isFinite(retryAfter)) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfter)))
  }
  if (status === 416 && Number.isSafeInteger(totalSize)) headers['content-range'] = `bytes */${String(totalSize)}`
  return headers
}

/**
 * A write whose backend call failed after it left the gateway (a timeout, a dropped connection): the
 * backend may have applied it. Its answer says so and how to find out (clients must not retry a create
 * blindly). Made by `writeCall`; answered as the failure it wraps, with these details.
 */
export class WriteOutcomeUnknown extends Error {
  constructor (override readonly cause: unknown) {
    super('the write may have been applied')
    this.name = 'WriteOutcomeUnknown'
  }
}

export const MAYBE_APPLIED = {
  maybe_applied: true,
  retry: 'The write may have been applied: retry it with the same Idempotency-Key, or read the object to check.',
} as const

/** grpc-js's words for a call that never reached a backend: it was certainly not applied. */
const NEVER_SENT = /No connection established|Channel closed before call started/

/** Awaits the backend call of a write (POST, PUT, DELETE); a failure that leaves its outcome unknown says so. */
export async function writeCall<T> (call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (err) {
    const t = toTransportError(err)
    const unknown = !t.expose && [502, 503, 504].includes(t.httpStatus) &&
      !(t.grpcStatus === grpcStatus.UNAVAILABLE && NEVER_SENT.test(String((err as { details?: unknown }).details)))
    throw unknown ? new WriteOutcomeUnknown(err) : err
  }
}

/** Any thrown value → what to answer. 5xx never carry internal text. */
export function describeError (err: unknown): DescribedError {
  if (err instanceof HttpError) {
    return { status: err.status, reason: err.reason, message: err.message, details: err.details, headers: { ...err.headers } }
  }
  if (err instanceof WriteOutcomeUnknown) return { ...describeError(err.cause), details: { ...MAYBE_APPLIED } }
  if (isUnreadableBody(err) && !isFastifyError(err)) {
    return { status: 400, reason: 'MALFORMED_REQUEST', message: 'the request body could not be read', details: null, headers: {} }
  }
  if (isFastifyError(err)) {
    const [status, reason] = FASTIFY_REASONS[err.code] ??
      (err.statusCode && err.statusCode < 500 ? [err.statusCode, 'MALFORMED_REQUEST'] : [500, 'INTERNAL_ERROR'])
    return { status, reason, message: status < 500 ? GENERIC[status] ?? 'malformed request' : present(GENERIC[500], 'the generic 500 message'), details: null, headers: {} }
  }
  const t = toTransportError(err)
  const headers = transportHeaders(t.httpStatus, t.details)
  // the platform's own words on an answer it could not carry tell the client what to ask instead
  if (t.reason === 'ANSWER_TOO_LARGE') return { status: t.httpStatus, reason: t.reason, message: t.message, details: null, headers }
  if (t.httpStatus >= 500 || !t.expose) {
    return { status: t.httpStatus, reason: t.reason, message: GENERIC[t.httpStatus] ?? present(GENERIC[500], 'the generic 500 message'), details: null, headers }
  }
  return { status: t.httpStatus, reason: t.reason, message: t.message, details: t.details, headers }
}

/** RFC 9110 §11.6.1: a 401 names the scheme; RFC 6750 §3.1 adds `error` for a bad bearer token. */
export function wwwAuthenticate (reason: string): string {
  if (reason === 'TOKEN_INVALID' || reason === 'TOKEN_EXPIRED') {
    const description = reason === 'TOKEN_EXPIRED' ? 'the access token has expired' : 'the access token is invalid'
    return `Bearer realm="content-objects", error="invalid_token", error_description="${description}"`
  }
  return 'Bearer realm="content-objects"'
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `{base}/docs/errors`: the page `more_info` links to, below the request's origin */
    errorsPagePath?: string
  }
}

/** Makes every error body link its code on the errors page (decisions §2 `more_info`). */
export function linkErrorsPage (app: FastifyInstance, basePath: string): void {
  app.decorate('errorsPagePath', `${basePath}/docs/errors`)
}

export function sendError (reply: FastifyReply, url: string, e: DescribedError): FastifyReply {
  const page = reply.server.errorsPagePath
  const body: ErrorBody = errorBody(url, e.status, e.reason, e.message, e.details, page === undefined ? null : originOf(reply.request) + page)
  if (e.status === 401) reply.header('www-authenticate', wwwAuthenticate(e.reason))
  return reply.code(e.status).headers(e.headers).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(body))
}

/** scheme://host of the request (X-Forwarded-* only when fastify's trustProxy is on). */
export function originOf (request: FastifyRequest): string {
  return `${request.protocol}://${request.host || 'localhost'}`
}

/** Absolute request URL without the query, for error bodies raised before the dispatcher ran. */
export function absoluteUrl (request: FastifyRequest): string {
  return originOf(request) + (request.url.split('?')[0] ?? '/')
}

/** Answers that say a backend is down, overloaded or slow: the backend's failure, not this request's. */
const DEPENDENCY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504])

/** A failure's cause in a few words: a code and message, never a stack or a body. */
function causeOf (err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const inner = err instanceof WriteOutcomeUnknown ? err.cause : err
  const code = (inner as { code?: unknown }).code
  const message = inner instanceof Error ? inner.message : String(inner)
  // Node's codes (ECONNRESET) say more than their messages; a gRPC message already starts with its code
  return (typeof code === 'string' ? `${code} ${message}` : message).slice(0, 300)
}

/**
 * How loud a failed request is, beside its access line (which carries its reason, and the cause of a
 * failure of the system or the connection). Error level is kept for what the system got wrong (an answer
 * it could not give: 500). A backend that is down, busy or slow was already answered 502/503/504 (and
 * shows in the metrics): warn, with its cause. A client that went away or sent a broken body: its access
 * line says so. Other refusals are the API working as specified: debug.
 */
export function logFailure (request: FastifyRequest, err: unknown, described: DescribedError): void {
  const systemOrClientGone = described.status >= 500 || request.raw.destroyed
  request.failure = systemOrClientGone ? { reason: described.reason, cause: causeOf(err) } : { reason: described.reason }
  if (request.raw.destroyed) logAbandoned(request, described.status)
  if (DEPENDENCY_STATUSES.has(described.status)) request.log.warn({ reason: described.reason, cause: causeOf(err) }, 'backend unavailable')
  else if (described.reason === 'ANSWER_TOO_LARGE') request.log.error({ reason: described.reason, cause: causeOf(err) }, 'answer larger than the services carry (MAX_MESSAGE_BYTES)')
  else if (described.status >= 500) request.log.error({ err }, 'request failed')
  else if (!request.raw.destroyed) request.log.debug({ reason: described.reason }, 'request rejected')
}

/** The one error handler: every failure leaves as the error body of decisions §2. */
export function registerErrorHandler (app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    // a file stream that failed before its first byte left the file's headers behind
    if (!reply.raw.headersSent) {
      for (const name of FILE_HEADER_NAMES) {
        reply.removeHeader(name)
        reply.raw.removeHeader(name)
      }
    }
    // refused before its body was in (413 on a declared length over the limit): the client may still be
    // sending, so close in stages, or the rest of its body draws a reset and it loses this answer
    if (!request.raw.complete) closeInStages(request.raw, reply.raw)
    const described = describeError(err)
    logFailure(request, err, described)
    return sendError(reply, absoluteUrl(request), described)
  })
}
