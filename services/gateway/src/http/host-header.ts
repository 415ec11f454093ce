import { isIP } from 'node:net'

/**
 * RFC 3986's `host [ ":" port ]`: a bracketed IPv6 address, or a name (IPv4 included) of unreserved
 * characters, sub-delims and percent-escapes; an optional port of digits.
 */
const AUTHORITY = /^(?:\[([0-9A-Fa-f:.]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::([0-9]*))?$/

/**
 * Whether `value` is a Host (or trusted X-Forwarded-Host) the answer's URLs can be built from: RFC 9112
 * §3.2 asks a 400 for an invalid one, which would otherwise be written into every `url` of the answer
 * (`Host: evil.example/x` made `http://evil.example/x/objects/1`). A port past 65535 makes no URL either.
 * Two Host lines arrive joined (`a, b`: the server joins duplicate headers), which no host spells.
 */
export function validHost (value: string): boolean {
  const m = AUTHORITY.exec(value)
  if (m === null) return false
  const [, ipv6, port] = m
  if (ipv6 !== undefined && isIP(ipv6) !== 6) return false
  return port === undefined || port === '' || Number(port) <= 65_535
}

/** The schemes an answer's URLs may take from a trusted X-Forwarded-Proto. */
export const validScheme = (value: string): boolean => value === 'http' || value === 'https'
