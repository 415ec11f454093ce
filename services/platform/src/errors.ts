import { Metadata, status, type ServiceError } from '@grpc/grpc-js'
import { grpcCodeOf, httpStatusOf, isErrorCode, type BackendErrorCode, type GrpcCode } from '@content/api-schema'
import { isMessageSizeLimit, MAX_MESSAGE_BYTES } from './rpc/message-size.js'

export type ErrorDetails = string | Record<string, unknown> | null

/**
 * A backend refusing this process's own credentials (a missing or wrong SERVICE_SECRET): a fault of the
 * deployment, never of the client, so it reaches clients as a plain 500. Not in the API's catalogue.
 */
export const SERVICE_CREDENTIAL_REASONS = ['SERVICE_AUTHENTICATION_REQUIRED', 'SERVICE_TOKEN_INVALID', 'CREDENTIALS_INVALID'] as const
export type ServiceCredentialReason = typeof SERVICE_CREDENTIAL_REASONS[number]
const isCredentialReason = (reason: string): reason is ServiceCredentialReason => (SERVICE_CREDENTIAL_REASONS as readonly string[]).includes(reason)

/** What a backend may raise: a code of the API's catalogue that has a gRPC status, or a credential refusal. */
export type ErrorReason = BackendErrorCode | ServiceCredentialReason

/**
 * An error of the domain. `reason` is the stable machine code clients see (`OBJECT_NOT_FOUND`, …); the
 * catalogue (@content/api-schema ERROR_CODES) decides the gRPC status it travels as, and the gateway's
 * HTTP status. Backends never know HTTP.
 */
export class DomainError extends Error {
  readonly code: GrpcCode
  constructor (
    readonly reason: ErrorReason,
    message: string,
    readonly details: ErrorDetails = null,
  ) {
    super(message)
    this.name = 'DomainError'
    this.code = isCredentialReason(reason) ? 'UNAUTHENTICATED' : grpcCodeOf(reason)
  }
}

export const REASON_KEY = 'content-error-reason'
/**
 * Details travel as UTF-8 JSON under a binary key: they may quote input (a nickname, a file name) in any
 * script, and a text metadata value outside printable ASCII is refused by gRPC.
 */
export const DETAILS_KEY = 'content-error-details-bin'
/** The text key of earlier releases, still read so a gateway understands a backend not yet upgraded. */
const LEGACY_DETAILS_KEY = 'content-error-details'

/** gRPC status → HTTP status, as google/rpc/code.proto maps them. */
export const HTTP_FROM_GRPC: Readonly<Record<number, number>> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
  [status.UNAUTHENTICATED]: 401,
}

/**
 * Reason used when a status arrives without one (a dependency failed, not the domain). A backend's own
 * rate limit always names its reason; RESOURCE_EXHAUSTED without one is gRPC's, and a message over the
 * size limit (isMessageSizeLimit) is not something to retry later: see transportFailure.
 */
export const DEFAULT_REASON: Readonly<Record<number, string>> = {
  [status.CANCELLED]: 'REQUEST_CANCELLED',
  [status.DEADLINE_EXCEEDED]: 'BACKEND_TIMEOUT',
  [status.UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
  [status.UNIMPLEMENTED]: 'NOT_IMPLEMENTED',
  [status.RESOURCE_EXHAUSTED]: 'TOO_MANY_REQUESTS',
}

/** What clients read when an answer could not be carried: the limit, and how to ask for less. */
export const ANSWER_TOO_LARGE_MESSAGE = `the answer is larger than the services carry (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB): ask for fewer or smaller objects (page_size, include_limit, fields)`

/** What the gateway needs to answer an error. */
export interface TransportError {
  grpcStatus: number
  httpStatus: number
  reason: string
  message: string
  details: ErrorDetails
  /** true when the message comes from the domain and may be shown to clients */
  expose: boolean
}

/** Domain error → the object a gRPC callback accepts. Never throws: it runs inside the callbacks that answer calls. */
export function toServiceError (err: DomainError): Partial<ServiceError> {
  const metadata = new Metadata()
  metadata.set(REASON_KEY, err.reason)
  const details = err.details === null ? undefined : jsonBytes(err.details)
  if (details !== undefined) metadata.set(DETAILS_KEY, details)
  return { code: status[err.code], details: err.message, metadata }
}

function jsonBytes (value: ErrorDetails): Buffer | undefined {
  try {
    return Buffer.from(JSON.stringify(value), 'utf8')
  } catch {
    return undefined // a cycle or a BigInt: the reason and message still travel
  }
}

function isServiceError (err: unknown): err is ServiceError {
  return typeof err === 'object' && err !== null && typeof (err as ServiceError).code === 'number' &&
    (err as ServiceError).metadata instanceof Metadata
}

/** A reason's HTTP status: the catalogue's, or for a reason it lacks (a newer backend's), its gRPC status's. */
const httpStatusFor = (reason: string, grpcStatus: number): number =>
  isErrorCode(reason) ? httpStatusOf(reason) : HTTP_FROM_GRPC[grpcStatus] ?? 500

/** Anything thrown by a gRPC call (or by our own code) → the error the gateway answers with. */
export function toTransportError (err: unknown): TransportError {
  if (err instanceof DomainError) {
    const grpcStatus = status[err.code]
    if (isCredentialReason(err.reason)) return { grpcStatus, httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', details: null, expose: false }
    return { grpcStatus, httpStatus: httpStatusFor(err.reason, grpcStatus), reason: err.reason, message: err.message, details: err.details, expose: true }
  }
  if (isServiceError(err)) {
    const reason = err.metadata.get(REASON_KEY)[0]
    const rawDetails = err.metadata.get(DETAILS_KEY)[0] ?? err.metadata.get(LEGACY_DETAILS_KEY)[0]
    const httpStatus = HTTP_FROM_GRPC[err.code] ?? 500
    if (typeof reason === 'string' && isCredentialReason(reason)) {
      return { grpcStatus: err.code, httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', details: null, expose: false }
    }
    if (typeof reason === 'string') {
      return { grpcStatus: err.code, httpStatus: httpStatusFor(reason, err.code), reason, message: err.details, details: parseDetails(rawDetails), expose: true }
    }
    return transportFailure(err.code, err.details, httpStatus)
  }
  return { grpcStatus: status.INTERNAL, httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', details: null, expose: false }
}

/** A status that came without a domain reason: gRPC's or a dependency's failure, mapped by DEFAULT_REASON. */
function transportFailure (code: number, details: unknown, httpStatus: number): TransportError {
  if (code === status.RESOURCE_EXHAUSTED && isMessageSizeLimit(details)) {
    return { grpcStatus: code, httpStatus: httpStatusOf('ANSWER_TOO_LARGE'), reason: 'ANSWER_TOO_LARGE', message: ANSWER_TOO_LARGE_MESSAGE, details: null, expose: true }
  }
  return { grpcStatus: code, httpStatus, reason: DEFAULT_REASON[code] ?? 'INTERNAL_ERROR', message: '', details: null, expose: false }
}

function parseDetails (raw: unknown): ErrorDetails {
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : raw
  if (typeof text !== 'string') return null
  try {
    return JSON.parse(text) as ErrorDetails
  } catch {
    return text
  }
}
