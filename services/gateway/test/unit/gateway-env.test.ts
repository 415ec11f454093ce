import { ConfigError } from '@content/platform'
import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import { describe, expect, it } from 'vitest'
import { loadGatewayConfig } from '../../src/config.js'
import { must } from '../support/must.js'

const load = (env: Record<string, string>) => loadGatewayConfig({ ...TEST_IDENTITY_ENV, ...env })

describe('gateway environment', () => {
  it('TRUST_PROXY is off by default, on for true, or the proxies\' addresses and ranges', () => {
    expect(load({}).TRUST_PROXY).toBe(false)
    expect(load({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true)
    expect(load({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8'])
  })

  it.each(['10.0.0.0/33', 'proxy.local', '10.0.0.1/8/1', ',', '::1/129'])('TRUST_PROXY=%s is refused', (value) => {
    expect(() => load({ TRUST_PROXY: value })).toThrow(ConfigError)
  })

  it('SERVICE_SECRET and JWT_SECRET are required, 32 bytes at least', () => {
    expect(() => loadGatewayConfig({ JWT_SECRET: must(TEST_IDENTITY_ENV.JWT_SECRET) })).toThrow(/SERVICE_SECRET: is required/)
    expect(() => load({ SERVICE_SECRET: 'short' })).toThrow(/SERVICE_SECRET: must be at least 32 bytes/)
  })
})
