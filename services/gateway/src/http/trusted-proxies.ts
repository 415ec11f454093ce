import { isIP } from 'node:net'

/**
 * The proxies whose X-Forwarded-* headers are believed (fastify's trustProxy): every peer (true), none
 * (false), or these addresses and CIDR ranges. The client address the login limiter counts by comes
 * from it.
 */
export type TrustedProxies = boolean | string[]

/** An IP address, or one followed by a prefix length that fits it. */
export function isAddressOrRange (entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}
