import { describe, expect, it } from 'vitest'
import { addressAllowed, checkWebhookUrl, guardedLookup } from '../../src/webhooks/target.js'

describe('webhook target URLs', () => {
  it('when a URL is absolute http or https without credentials, then it passes', () => {
    expect(checkWebhookUrl('https://hooks.example.org/a?b=1')).toMatchObject({ ok: true })
    const checked = checkWebhookUrl('http://hooks.example.org:8080')
    expect(checked.ok && checked.url.host).toBe('hooks.example.org:8080')
  })

  it('when a URL is of another scheme, relative, carries credentials or is too long, then it is refused with a reason', () => {
    expect(checkWebhookUrl('ftp://x.org/')).toEqual({ ok: false, reason: 'the URL must be http or https' })
    expect(checkWebhookUrl('javascript:alert(1)')).toEqual({ ok: false, reason: 'the URL must be http or https' })
    for (const bad of ['/relative', 'hooks.example.org/a', 'not a url', 'https://user:pw@x.org/', 'https://user@x.org/', `https://x.org/${'a'.repeat(2100)}`]) {
      const checked = checkWebhookUrl(bad)
      expect(checked.ok, bad).toBe(false)
      if (!checked.ok) expect(checked.reason, bad).toMatch(/^the URL /)
    }
  })
})

describe('webhook target addresses', () => {
  const strict = { allowPrivate: false }

  it('when an address is loopback, private, link-local or special, then it is refused', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect(addressAllowed(a, strict), a).toBe(false)
    }
  })

  it('when an address is public unicast, then it is allowed', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(addressAllowed(a, strict), a).toBe(true)
  })

  it('when private addresses are allowed, then any parsable address is, and garbage never', () => {
    expect(addressAllowed('127.0.0.1', { allowPrivate: true })).toBe(true)
    expect(addressAllowed('::1', { allowPrivate: true })).toBe(true)
    expect(addressAllowed('garbage', strict)).toBe(false)
    expect(addressAllowed('garbage', { allowPrivate: true })).toBe(false)
  })
})

describe('guarded lookup', () => {
  const lookup = (allowPrivate: boolean, all: boolean) => new Promise<{ err: NodeJS.ErrnoException | null, address: unknown, family?: number }>((resolve) =>
    guardedLookup({ allowPrivate })('localhost', { all }, (err, address, family) => resolve({ err, address, family })))

  it('when a name resolves to a refused address, then the lookup fails with EADDRNOTALLOWED naming it', async () => {
    const { err } = await lookup(false, false)
    expect(err?.code).toBe('EADDRNOTALLOWED')
    expect(err?.message).toMatch(/127\.0\.0\.1|::1/)
  })

  it('when the address is allowed, then it answers as Node expects for the all option', async () => {
    const one = await lookup(true, false)
    expect(one.err).toBeNull()
    expect(['127.0.0.1', '::1']).toContain(one.address)
    expect([4, 6]).toContain(one.family)
    const all = await lookup(true, true)
    expect(all.err).toBeNull()
    expect(Array.isArray(all.address) && all.address.length > 0).toBe(true)
  })
})
