import { Metadata, status, type ServiceError } from '@grpc/grpc-js'

/** Canonical codes a backend may raise; each travels as the gRPC status of the same name. */
export type ErrorCode =
  | 'INVALID_ARGUMENT' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION' | 'OUT_OF_RANGE' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED'
  | 'UNIMPLEMENTED' | 'INTERNAL'

export type ErrorDetails = string | Record<string, unknown> | null

/**
 * An error of the domain. `reason` is the stable machine code clients see (`OBJECT_NOT_FOUND`, …);
 * `code` picks the transport status. Backends never know HTTP.
 */
export class DomainError extends Error {
  constructor (
    readonly code: ErrorCode,
    readonly reason: string,
    message: string,
    readonly details: ErrorDetails = null,
  ) {
    super(message)
    this.name = 'DomainError'
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
 * The few reasons whose HTTP status is more precise than their gRPC code's (decisions §12: an upload
 * of the wrong type is 415, one over the size limit 413; a byte range past the end is 416; an
 * Idempotency-Key used for another request is 422, RFC 9110 §15.5.21).
 */
export const HTTP_FOR_REASON: Readonly<Record<string, number>> = {
  UPLOAD_TYPE_INVALID: 415,
  UPLOAD_MAX_FILESIZE_EXCEEDED: 413,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
}

/**
 * A backend refusing this process's own credentials (a missing or wrong SERVICE_SECRET): a fault of the
 * deployment, never of the client, so it reaches clients as a plain 500.
 */
export const SERVICE_CREDENTIAL_REASONS: ReadonlySet<string> = new Set(['SERVICE_AUTHENTICATION_REQUIRED', 'SERVICE_TOKEN_INVALID', 'CREDENTIALS_INVALID'])

/** Reason used when a status arrives without one (a dependency failed, not the domain). */
export const DEFAULT_REASON: Readonly<Record<number, string>> = {
  [status.CANCELLED]: 'REQUEST_CANCELLED',
  [status.DEADLINE_EXCEEDED]: 'BACKEND_TIMEOUT',
  [status.UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
  [status.UNIMPLEMENTED]: 'NOT_IMPLEMENTED',
  [status.RESOURCE_EXHAUSTED]: 'TOO_MANY_REQUESTS',
}

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

/** Anything thrown by a gRPC call (or by our own code) → the error the gateway answers with. */
export function toTransportError (err: unknown): TransportError {
  if (err instanceof DomainError) {
    const grpcStatus = status[err.code]
    return { grpcStatus, httpStatus: HTTP_FOR_REASON[err.reason] ?? HTTP_FROM_GRPC[grpcStatus] ?? 500, reason: err.reason, message: err.message, details: err.details, expose: true }
  }
  if (isServiceError(err)) {
    const reason = err.metadata.get(REASON_KEY)[0]
    const rawDetails = err.metadata.get(DETAILS_KEY)[0] ?? err.metadata.get(LEGACY_DETAILS_KEY)[0]
    const httpStatus = HTTP_FROM_GRPC[err.code] ?? 500
    if (typeof reason === 'string' && SERVICE_CREDENTIAL_REASONS.has(reason)) {
      return { grpcStatus: err.code, httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', details: null, expose: false }
    }
    if (typeof reason === 'string') {
      return { grpcStatus: err.code, httpStatus: HTTP_FOR_REASON[reason] ?? httpStatus, reason, message: err.details, details: parseDetails(rawDetails), expose: true }
    }
    return { grpcStatus: err.code, httpStatus, reason: DEFAULT_REASON[err.code] ?? 'INTERNAL_ERROR', message: '', details: null, expose: false }
  }
  return { grpcStatus: status.INTERNAL, httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', details: null, expose: false }
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
