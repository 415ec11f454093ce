import type { IncomingMessage } from 'node:http'
import { REQUEST_ID_HEADER } from '@content/platform'

/**
 * What the lanes in front of fastify (cached-lane.ts, rerun-lane.ts) key a learned read by: everything its
 * answer depends on besides its path and query (a token there included): the caller's credential
 * (Authorization), the peer and the headers that decide its origin and client address (Host,
 * X-Forwarded-* from a trusted proxy) and its CORS headers (Origin).
 */
export function signatureOf (req: IncomingMessage): string {
  const h = req.headers
  return `${h.authorization}\n${req.socket.remoteAddress}\n${h.host}\n${h['x-forwarded-proto']}\n${h['x-forwarded-host']}\n${h['x-forwarded-for']}\n${h.origin}\n${req.url}`
}

/** A GET with a Host (the full path refuses its absence) and no validator (the full path answers 304s). */
export function mayReplay (req: IncomingMessage): boolean {
  const h = req.headers
  return req.method === 'GET' && h.host !== undefined && h['if-none-match'] === undefined
}

/** Headers never learned: set per request or per answer. */
const PER_ANSWER = new Set([REQUEST_ID_HEADER.toLowerCase(), 'etag', 'content-length'])

/** The headers of an answer the full path sent, but those set per request or per answer, as a flat name, value list for writeHead. */
export function learnedHeaders (headers: Readonly<Record<string, string | number | readonly string[] | undefined>>): string[] {
  const flat: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || PER_ANSWER.has(name)) continue
    for (const one of Array.isArray(value) ? value : [value]) flat.push(name, String(one))
  }
  return flat
}
