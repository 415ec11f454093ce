import { hash } from 'node:crypto'

/** A strong validator: the hash of the exact body bytes (one-shot `hash`: half the cost of a Hash object on a small body). */
export function etagOf (body: string | Buffer): string {
  return `"${hash('sha1', body, 'base64url')}"`
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored; `*` matches. */
export function ifNoneMatchHits (header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false
  const value = Array.isArray(header) ? header.join(',') : header
  if (value.trim() === '*') return true
  return value.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
