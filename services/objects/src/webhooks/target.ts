import { lookup as dnsLookup } from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

export interface AddressPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local receivers allowed (tests, closed networks) */
  allowPrivate: boolean
}

const MAX_URL_LENGTH = 2048

/** An absolute http(s) URL without credentials, or why not. */
export function checkWebhookUrl (text: string): { ok: true, url: URL } | { ok: false, reason: string } {
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, reason: 'the URL must be absolute, like https://example.org/hook' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'the URL must be http or https' }
  if (url.hostname === '') return { ok: false, reason: 'the URL has no host' }
  // Credentials in the URL would be stored and shown in listings; receivers authenticate by the signature.
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL may not contain a user name or password' }
  return { ok: true, url }
}

/**
 * Only public unicast addresses, unless the policy allows private ones. Every special range ipaddr.js
 * knows (loopback, private, link-local, CGNAT, multicast, reserved, …) is refused, and an IPv4-mapped
 * IPv6 address is judged as its IPv4, since connecting to it reaches that IPv4.
 */
export function addressAllowed (address: string, policy: AddressPolicy): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address)
  } catch {
    return false
  }
  if (policy.allowPrivate) return true
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range() === 'unicast'
}

function notAllowed (hostname: string, address: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${hostname} resolves to ${address}, which webhooks may not reach`), { code: 'EADDRNOTALLOWED' })
}

/**
 * A `lookup` for http.request that refuses a name if any of its addresses is not allowed. The check is
 * on the very addresses the connection then uses, so a name cannot answer differently in between
 * (DNS rebinding). IP-literal hosts never reach a lookup: the caller checks them with addressAllowed.
 */
export function guardedLookup (policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '')
      const refused = addresses.find((a) => !addressAllowed(a.address, policy))
      if (refused) return callback(notAllowed(hostname, refused.address), '')
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '')
      // Node asks with all: true when it races IPv4 and IPv6 (autoSelectFamily), else for one address.
      if (options.all) return callback(null, addresses)
      callback(null, first.address, first.family)
    })
  }
}
