import { describe, expect, it } from 'vitest'
import { defaultTestId, healthUrl, readConfig } from '../lib/config.ts'
import { pick } from '../lib/sample.ts'
import { looksLikeJwt, needsRenewal, sessionFrom, tokenDataOf } from '../lib/session.ts'
import { must } from './support/must.ts'

describe('readConfig', () => {
  const now = new Date('2026-01-31T12:00:00.123Z')

  it('defaults: localhost:8080, smoke, 20 VUs, 10 iterations/s up to 100 VUs, 1 s think time, pages of 20, a testid of the script and the time', () => {
    expect(readConfig({}, { script: 'read-objects', now })).toEqual({
      baseUrl: 'http://localhost:8080', preset: 'smoke', vus: 20, rate: 10, maxVus: 100, thinkTimeSeconds: 1, pageSize: 20,
      testId: 'read-objects-20260131T120000Z', summaryFile: undefined, username: undefined, password: undefined,
    })
  })

  it('reads every setting and trims a trailing slash from BASE_URL', () => {
    const c = readConfig({ BASE_URL: 'https://api.example.com/v1/', PRESET: 'spike', VUS: '5', RATE: '50', MAX_VUS: '40', THINK_TIME: '0', PAGE_SIZE: '100',
      TESTID: 'nightly-42', SUMMARY_FILE: '/results/summary.json', API_USERNAME: 'bob', API_PASSWORD: 'pw' })
    expect(c).toEqual({
      baseUrl: 'https://api.example.com/v1', preset: 'spike', vus: 5, rate: 50, maxVus: 40, thinkTimeSeconds: 0, pageSize: 100,
      testId: 'nightly-42', summaryFile: '/results/summary.json', username: 'bob', password: 'pw',
    })
  })

  it('arrival-rate presets pace iterations themselves: no think time unless THINK_TIME says so', () => {
    expect(readConfig({ PRESET: 'constant-rate' }).thinkTimeSeconds).toBe(0)
    expect(readConfig({ PRESET: 'ramping-rate', THINK_TIME: '0.5' }).thinkTimeSeconds).toBe(0.5)
    expect(readConfig({ PRESET: 'average' }).thinkTimeSeconds).toBe(1)
  })

  it('falls back to ADMIN_PASSWORD with the admin user, never to the system USERNAME', () => {
    expect(readConfig({ ADMIN_PASSWORD: 'pw', USERNAME: 'me' }, { needsCredentials: true })).toMatchObject({ username: 'admin', password: 'pw' })
    expect(readConfig({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'pw' }, { needsCredentials: true })).toMatchObject({ username: 'root' })
  })

  it('lists every problem at once', () => {
    expect(() => readConfig({ BASE_URL: 'localhost', PRESET: 'soak', VUS: '0', RATE: 'fast', MAX_VUS: '5', PAGE_SIZE: '500', THINK_TIME: '-1', TESTID: 'a b' }, { needsCredentials: true }))
      .toThrow(new Error([
        'invalid k6 settings:',
        '  - BASE_URL must be an http(s) URL, got "localhost"',
        '  - PRESET must be one of smoke, average, stress, spike, constant-rate, ramping-rate, got "soak"',
        '  - VUS must be a positive integer, got "0"',
        '  - RATE must be a positive integer, got "fast"',
        '  - PAGE_SIZE must be at most 100',
        '  - TESTID must be 1-128 letters, digits and . _ : -, got "a b"',
        '  - THINK_TIME must be a number of seconds ≥ 0, got "-1"',
        '  - set API_USERNAME and API_PASSWORD (or ADMIN_PASSWORD, with ADMIN_USERNAME defaulting to admin)',
      ].join('\n')))
    expect(() => readConfig({ VUS: '50', MAX_VUS: '10' })).toThrow('MAX_VUS (10) must be at least VUS (50)')
  })

  it('the default testid is the script and the start time in UTC, without separators', () => {
    expect(defaultTestId('mixed', new Date('2026-07-04T09:05:03.999Z'))).toBe('mixed-20260704T090503Z')
  })
})

describe('healthUrl', () => {
  it('is /healthz at the root of the origin, whatever base path BASE_URL has', () => {
    expect(healthUrl('http://localhost:8080')).toBe('http://localhost:8080/healthz')
    expect(healthUrl('https://content.example.org/api/v1')).toBe('https://content.example.org/healthz')
    expect(healthUrl('http://[::1]:8080/api')).toBe('http://[::1]:8080/healthz')
  })

  it('refuses what is not an http(s) URL', () => {
    expect(() => healthUrl('content.example.org/api')).toThrow('BASE_URL must be an http(s) URL')
  })
})

describe('session', () => {
  const envelope = { api: 'auth', data: { access_token: 'a.b.c', expires_in: 600, refresh_token: 'r' } }

  it('tokenDataOf reads token data and rejects other shapes', () => {
    expect(tokenDataOf(envelope)).toEqual(envelope.data)
    expect(tokenDataOf({ data: { access_token: 'a.b.c', expires_in: 5 } })).toEqual({ access_token: 'a.b.c', expires_in: 5 })
    expect(tokenDataOf({ data: { access_token: 1, expires_in: 5 } })).toBeUndefined()
    expect(tokenDataOf({ error: {} })).toBeUndefined()
  })

  it('renews when absent or within the margin of expiry', () => {
    const s = sessionFrom(must(tokenDataOf(envelope)), 1_000_000)
    expect(s).toEqual({ accessToken: 'a.b.c', refreshToken: 'r', expiresAtMs: 1_600_000 })
    expect(needsRenewal(undefined, 0)).toBe(true)
    expect(needsRenewal(s, 1_000_000)).toBe(false)
    expect(needsRenewal(s, 1_569_999)).toBe(false)
    expect(needsRenewal(s, 1_570_000)).toBe(true)
  })

  it.each([['aa.bb.cc', true], ['aa.bb', false], ['', false], [undefined, false], ['a b.c.d', false]])(
    'looksLikeJwt(%j) = %s', (token, ok) => { expect(looksLikeJwt(token)).toBe(ok) })
})

describe('pick', () => {
  it('maps [0, 1) onto the list', () => {
    expect(pick(['a', 'b', 'c'], () => 0)).toBe('a')
    expect(pick(['a', 'b', 'c'], () => 0.5)).toBe('b')
    expect(pick(['a', 'b', 'c'], () => 0.9999)).toBe('c')
  })
  it('refuses an empty list', () => { expect(() => pick([])).toThrow(RangeError) })
})
