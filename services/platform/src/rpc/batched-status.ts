import { Metadata, status, type ServiceError } from '@grpc/grpc-js'
import { DETAILS_KEY, REASON_KEY, toServiceError, type DomainError } from '../errors.js'

/** How one read of a coalesced call ended: what the status and trailers of its own call would have said. */
export interface MemberStatus { code: number, message: string, reason: string, details_json: Buffer }

export const MEMBER_OK: Readonly<MemberStatus> = Object.freeze({ code: status.OK, message: '', reason: '', details_json: Buffer.alloc(0) })

/** A member refused by the domain, as wrapUnary would have answered its own call (toServiceError). */
export function memberFailure (err: DomainError): MemberStatus {
  const e = toServiceError(err)
  const details = e.metadata?.get(DETAILS_KEY)[0]
  return { code: e.code ?? status.INTERNAL, message: e.details ?? '', reason: err.reason, details_json: Buffer.isBuffer(details) ? details : Buffer.alloc(0) }
}

/** A member that failed outside the domain: its own call would have ended INTERNAL with nothing said. */
export const MEMBER_INTERNAL: Readonly<MemberStatus> = Object.freeze({ code: status.INTERNAL, message: 'internal error', reason: '', details_json: Buffer.alloc(0) })

/**
 * The error a member's own unary call would have rejected with: grpc-js's ServiceError, its reason and
 * details in the trailers, so the gateway's error mapping (toTransportError) reads it unchanged.
 */
export function memberError (code: number, message: string, reason = '', detailsJson?: Uint8Array): ServiceError {
  const metadata = new Metadata()
  if (reason !== '') metadata.set(REASON_KEY, reason)
  if (detailsJson !== undefined && detailsJson.length > 0) metadata.set(DETAILS_KEY, Buffer.from(detailsJson))
  return Object.assign(new Error(`${code} ${status[code] ?? 'UNKNOWN'}: ${message}`), { code, details: message, metadata })
}
