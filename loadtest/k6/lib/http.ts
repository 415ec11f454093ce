/** k6 request helpers shared by the scripts: JSON calls with name tags, the health gate, login. */
import http from 'k6/http'
import type { RefinedResponse } from 'k6/http'
import { check, fail, sleep } from 'k6'
import { healthUrl } from '../../lib/config.ts'
import { envelopeProblems, parseJson, type EnvelopeExpectation } from '../../lib/envelope.ts'
import { loginInput } from '../../lib/payloads.ts'
import { sessionFrom, tokenDataOf, type Session } from '../../lib/session.ts'

export interface JsonResponse { res: RefinedResponse<'text'>, body: unknown }

function headers (token?: string, json = false): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json' }
  if (json) h['Content-Type'] = 'application/json'
  if (token) h.Authorization = `Bearer ${token}`
  return h
}

/**
 * One request. `name` is the metric tag for dynamic URLs (k6 "URL grouping"), so ids do not
 * explode the number of time series.
 */
export function call (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, name: string, opts: { token?: string, body?: unknown } = {}): JsonResponse {
  const payload = opts.body === undefined ? null : JSON.stringify(opts.body)
  const res = http.request(method, url, payload, {
    headers: headers(opts.token, payload !== null),
    tags: { name },
    responseType: 'text',
  })
  return { res, body: parseJson(res.body) }
}

/** A call that must answer `status` with a valid envelope; the check is named after the request. */
export function expectEnvelope (r: JsonResponse, name: string, status: number, expected: EnvelopeExpectation = {}): boolean {
  return check(r, {
    [`${name} → ${status}`]: (x) => x.res.status === status,
    [`${name} envelope`]: (x) => envelopeProblems(x.body, expected).length === 0,
  })
}

/** setup(): stop the run early, with a clear message, when the target is not up. */
export function healthGate (baseUrl: string, attempts = 10): void {
  const url = healthUrl(baseUrl)
  for (let i = 1; i <= attempts; i++) {
    const res = http.get(url, { tags: { name: 'GET /healthz' }, responseType: 'text' })
    if (res.status === 200) return
    if (i < attempts) sleep(1)
  }
  fail(`${url} did not answer 200 after ${attempts} attempts; is the gateway up (BASE_URL)?`)
}

/** POST /auth with the password grant; fails the run when the credentials are wrong. */
export function login (baseUrl: string, username: string, password: string): Session {
  const r = call('POST', `${baseUrl}/auth`, 'POST /auth (password)', { body: loginInput(username, password) })
  const data = tokenDataOf(r.body)
  if (r.res.status !== 200 || data === undefined) fail(`login as ${username} answered ${r.res.status}`)
  return sessionFrom(data, Date.now())
}
