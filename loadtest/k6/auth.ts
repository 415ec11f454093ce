/**
 * The token life cycle per iteration: login (password grant), a read with the token, GET /auth,
 * refresh (rotation: a new refresh token), revoke the refresh token. Login hashes with argon2id,
 * so this scenario measures CPU-bound work in the auth service.
 *
 *   k6 run -e BASE_URL=... -e API_USERNAME=admin -e API_PASSWORD=... -e PRESET=smoke loadtest/k6/auth.ts
 */
import { check, sleep } from 'k6'
import { credentialsOf, readConfig } from '../lib/config.ts'
import { refreshInput } from '../lib/payloads.ts'
import { looksLikeJwt, tokenDataOf } from '../lib/session.ts'
import { call, expectEnvelope, healthGate, login } from './lib/http.ts'
import { runOptions } from './lib/presets.ts'
import { summaryHandler } from '../lib/summary.ts'

const config = readConfig(__ENV, { needsCredentials: true, script: 'auth' })
const BASE = config.baseUrl

export const options = runOptions(config, {
  auth: {
    overall: { p95: 800, p99: 1500 },
    perName: {
      'POST /auth (password)': { p95: 1000, p99: 2000 },
      'POST /auth (refresh)': { p95: 300, p99: 800 },
      'GET /objects/{id} (token)': { p95: 200, p99: 500 },
    },
  },
})

export function setup (): void {
  healthGate(BASE)
  // One login up front: wrong credentials stop the run here instead of failing every iteration.
  login(BASE, ...credentialsOf(config))
}

export default function (): void {
  const first = call('POST', `${BASE}/auth`, 'POST /auth (password)', {
    body: { username: config.username, password: config.password, grant_type: 'password' },
  })
  expectEnvelope(first, 'POST /auth (password)', 200, { api: 'auth' })
  const tokens = tokenDataOf(first.body)
  if (!check(tokens, { 'login returns a JWT and a refresh token': (t) => looksLikeJwt(t?.access_token) && typeof t?.refresh_token === 'string' })) return
  if (tokens?.refresh_token === undefined) return
  const access = tokens.access_token

  const read = call('GET', `${BASE}/objects/1`, 'GET /objects/{id} (token)', { token: access })
  expectEnvelope(read, 'GET /objects/{id} (token)', 200, { api: 'objects' })

  const expiry = call('GET', `${BASE}/auth`, 'GET /auth', { token: access })
  expectEnvelope(expiry, 'GET /auth', 200, { api: 'auth' })
  check(tokenDataOf(expiry.body), { 'GET /auth expires_in within the lifetime': (t) => t !== undefined && t.expires_in > 0 && t.expires_in <= tokens.expires_in })

  const renewed = call('POST', `${BASE}/auth`, 'POST /auth (refresh)', { body: refreshInput(tokens.refresh_token) })
  expectEnvelope(renewed, 'POST /auth (refresh)', 200, { api: 'auth' })
  const next = tokenDataOf(renewed.body)
  check(next, { 'refresh rotates the refresh token': (t) => typeof t?.refresh_token === 'string' && t.refresh_token !== tokens.refresh_token })

  const toRevoke = next?.refresh_token ?? tokens.refresh_token
  const revoked = call('DELETE', `${BASE}/auth/${encodeURIComponent(toRevoke)}`, 'DELETE /auth/{refresh_token}', { token: next?.access_token ?? access })
  check(revoked, { 'DELETE /auth/{refresh_token} → 204': (r) => r.res.status === 204 })
  sleep(config.thinkTimeSeconds)
}

export const handleSummary = summaryHandler(config.testId, config.summaryFile)
