import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import ipaddr from 'ipaddr.js'

export interface AddressPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local receivers allowed (tests, closed networks) */
  allowPrivate: boolean
}

/** An absolute http(s) URL without credentials, or why not. */
export function checkWebhookUrl (text: string): { ok: true, url: URL } | { ok: false, reason: string } {
  if (text.length > 2048) return { ok: false, reason: 'the URL is longer than 2048 characters' }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, reason: 'not an absolute URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'the URL must be http or https' }
  if (url.hostname === '') return { ok: false, reason: 'the URL has no host' }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL may not carry a user name or password' }
  return { ok: true, url }
}

/** Only public unicast addresses, unless the policy allows private ones (IPv4-mapped IPv6 judged as its IPv4). */
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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for http.request that refuses a name resolving to any address the policy does not allow.
 * The check is on the addresses the connection then uses, so a name cannot change its answer in between.
 */
export function guardedLookup (policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '')
      const refused = addresses.find((a) => !addressAllowed(a.address, policy))
      if (refused) {
        return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, which webhooks may not reach`), { code: 'EADDRNOTALLOWED' }), '')
      }
      if (options.all) return callback(null, addresses)
      const first = addresses[0]!
      callback(null, first.address, first.family)
    })
  }
}
