import type { IncomingHttpHeaders } from 'node:http'

/**
 * The content coding of a request's body (RFC 9110 §8.4), when it has one other than `identity`. The
 * gateway reads bodies as they are sent, so a coded one is refused (415, with `Accept-Encoding:
 * identity` as RFC 7694 asks) instead of being parsed, forwarded or stored as if it were not coded.
 */
export function bodyCoding (headers: IncomingHttpHeaders): string | undefined {
  const header = headers['content-encoding']
  if (header === undefined) return undefined
  const codings = header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity')
  return codings.length === 0 ? undefined : codings.join(', ')
}

/** What the 415 of a coded body says: the codings as sent, clipped (a header may be kilobytes long). */
export function codedBodyMessage (coding: string): string {
  const shown = coding.length > 64 ? `${coding.slice(0, 64)}…` : coding
  return `a body with Content-Encoding ${JSON.stringify(shown)} is not accepted: send it without a content coding`
}

/** The header of that 415: the one coding the gateway reads. */
export const ACCEPTED_CODINGS = { 'accept-encoding': 'identity' }
