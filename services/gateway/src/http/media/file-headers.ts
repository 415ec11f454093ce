import type { v1 } from '@content/protos'

type FileHeader = v1.FileHeader__Output

/** What the mapping needs besides the header. */
export interface FileContext {
  /** ms since the epoch */
  now: number
  /** the request presented an access token */
  token: boolean
  /** an original (download headers, ranges) rather than a thumbnail */
  original: boolean
}

export interface FileAnswer { status: 200 | 206, headers: Record<string, string> }

const YEAR = 31_536_000

/** Every header the mapping may set: an error answered instead of the bytes must not keep them. */
export const FILE_HEADER_NAMES = [
  'content-type', 'content-length', 'etag', 'x-content-type-options', 'cache-control', 'accept-ranges',
  'content-disposition', 'content-security-policy', 'content-range',
] as const

/** Decisions §12 "Serving bytes": who may keep a copy, and for how long. */
export function cacheControl (h: Pick<FileHeader, 'public' | 'immutable' | 'expires_at'>, now: number, token: boolean): string {
  if (h.public && h.immutable) return `public, max-age=${YEAR}, immutable`
  if (h.expires_at > 0) return `private, max-age=${Math.max(0, Math.floor((h.expires_at - now) / 1000))}`
  return h.public && !token ? 'no-cache' : 'private, no-cache'
}

// RFC 8187 attr-char: everything else is percent-encoded in filename*
const ATTR_CHAR = /[A-Za-z0-9!#$&+.^_`|~-]/

function percentEncode (name: string): string {
  let out = ''
  for (const byte of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += byte < 0x80 && ATTR_CHAR.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/**
 * RFC 6266: an ASCII `filename` for old clients (anything outside printable ASCII, quotes and
 * backslashes become `_`) and the exact name in `filename*`.
 */
export function contentDisposition (name: string, inline: boolean): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/gu, '_') || 'file'
  return `${inline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${percentEncode(name)}`
}

// values from another process go into headers only when well-formed (a bad one would be a 500 here)
const MIME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const ETAG = /^(W\/)?"[\x21\x23-\x7e]*"$/

/** The status and headers of a file answer (decisions §12), from the poster service's FileHeader. */
export function fileAnswer (h: FileHeader, ctx: FileContext): FileAnswer {
  const headers: Record<string, string> = {
    'content-type': MIME.test(h.mime_type) ? h.mime_type : 'application/octet-stream',
    'content-length': String(h.size),
    'x-content-type-options': 'nosniff',
    'cache-control': cacheControl(h, ctx.now, ctx.token),
  }
  if (ETAG.test(h.etag)) headers.etag = h.etag
  if (ctx.original) {
    headers['accept-ranges'] = 'bytes'
    headers['content-disposition'] = contentDisposition(h.file_name, h.inline)
    headers['content-security-policy'] = "default-src 'none'; sandbox"
  }
  if (typeof h.range_start !== 'number') return { status: 200, headers }
  headers['content-range'] = `bytes ${h.range_start}-${h.range_start + h.size - 1}/${h.total_size}`
  return { status: 206, headers }
}

/** A 304 repeats the validators and caching rules of the 200 it stands for (RFC 9110 §15.4.5). */
export function notModifiedHeaders (answer: FileAnswer): Record<string, string> {
  const { etag, 'cache-control': cache } = answer.headers
  return { ...(etag ? { etag } : {}), ...(cache ? { 'cache-control': cache } : {}) }
}
