import { parse } from 'content-type'

/** The charsets a JSON body may declare: JSON is UTF-8 (RFC 8259 §8.1), and ASCII is a part of it. */
const READ_AS_UTF8 = new Set(['utf-8', 'utf8', 'us-ascii'])

/**
 * The charset a body's `Content-Type` declares when it is one the gateway does not read: such a body is
 * refused (415) rather than decoded as UTF-8 into other text than was sent (`charset=iso-8859-1` bytes
 * that happen to be valid UTF-8) or refused as malformed (UTF-16). A header whose parameters do not parse
 * declares no charset, as for body-parser: its type alone decided that the body is JSON.
 */
export function unreadCharset (contentType: string | undefined): string | undefined {
  if (contentType === undefined || !contentType.includes(';')) return undefined
  let charset: string | undefined
  try {
    charset = parse(contentType).parameters.charset
  } catch {
    return undefined
  }
  return charset === undefined || READ_AS_UTF8.has(charset.toLowerCase()) ? undefined : charset
}

/** What the 415 of such a body says: the charset as sent, clipped (a header may be kilobytes long). */
export function unreadCharsetMessage (charset: string): string {
  const shown = charset.length > 64 ? `${charset.slice(0, 64)}…` : charset
  return `a body in charset ${JSON.stringify(shown)} is not accepted: send JSON as UTF-8`
}
