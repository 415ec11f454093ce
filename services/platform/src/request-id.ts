/** The header that carries a request's id, from the client to the gateway and from service to service. */
export const REQUEST_ID_HEADER = 'x-request-id'

/** 1–128 visible ASCII characters: safe in a log line, an HTTP header and gRPC metadata alike. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/

/** A request id as received (header or metadata value), or undefined when it is not one to keep. */
export function acceptedRequestId (value: unknown): string | undefined {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : undefined
}
