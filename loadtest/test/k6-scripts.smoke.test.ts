/**
 * Wiring smoke test: each k6 script runs its setup → default → teardown against a fake gateway
 * through stand-ins for `k6` and `k6/http`. It proves the scripts call the right URLs with name
 * tags and that their checks pass on spec-shaped answers; it measures nothing.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SummaryData } from '../lib/summary.ts'
import { BASE, FakeApi } from './support/fake-api.ts'
import type * as HttpShim from './support/k6-shim/http.ts'
import type * as K6Shim from './support/k6-shim/k6.ts'
import { must } from './support/must.ts'

type Script = {
  options: { scenarios: Record<string, { exec?: string }>, thresholds: Record<string, unknown>, tags: Record<string, string> }
  setup?: () => unknown, default?: (data?: unknown) => void, teardown?: (data: unknown) => void
  handleSummary: (data: SummaryData) => Record<string, string>
} & Record<string, unknown>
const g = globalThis as Record<string, unknown>

let api: FakeApi
let http: typeof HttpShim
let k6: typeof K6Shim

/** Fresh module graph per script: the shims the script imports are the ones the test inspects. */
async function load (name: string, env: Record<string, string>): Promise<Script> {
  vi.resetModules()
  http = await import('./support/k6-shim/http.ts')
  k6 = await import('./support/k6-shim/k6.ts')
  http.serve(api.handle)
  g.__ENV = { BASE_URL: BASE, THINK_TIME: '0', ...env }
  g.__VU = 1
  g.__ITER = 0
  g.open = (path: string) => new TextEncoder().encode(`bytes of ${path}`).buffer
  return await import(`../k6/${name}.ts`) as Script
}

function iterate (script: Script, data: unknown, times: number, exec = 'default'): void {
  const run = must(script[exec] as ((d: unknown) => void) | undefined, `an exported ${exec}`)
  for (let i = 0; i < times; i++) {
    g.__ITER = i
    run(data)
  }
}

const failedChecks = () => k6.recorded.checks.filter((c) => !c.ok).map((c) => c.name)
const names = () => new Set(http.calls.map((c) => c.tags.name))

beforeEach(() => { api = new FakeApi() })
afterEach(() => { delete g.__ENV; delete g.__VU; delete g.__ITER; delete g.open })

describe('read-objects.ts', () => {
  it('setup collects ids and sections; iterations pass every check with bounded name tags', async () => {
    const script = await load('read-objects', {})
    const data = must(script.setup)() as { objectIds: number[], sections: Array<{ id: number }> }
    expect(data.objectIds.sort()).toEqual([2, 3, 4, 5])
    expect(data.sections.map((s) => s.id).sort()).toEqual([1, 2])
    iterate(script, data, 30)
    expect(failedChecks()).toEqual([])
    expect(k6.recorded.checks.length).toBeGreaterThan(60)
    expect([...names()].sort()).toEqual([
      'GET /healthz', 'GET /objects', 'GET /objects/{id}', 'GET /objects/{id}/children', 'GET /objects/{id}/relations/{name}',
    ])
    expect(http.calls.every((c) => c.url.startsWith(`${BASE}/`))).toBe(true)
  })

  it('setup stops the run when /healthz does not answer 200', async () => {
    api.healthy = false
    const script = await load('read-objects', {})
    expect(() => must(script.setup)()).toThrow(`${BASE}/healthz did not answer 200`)
  })

  it('runs against a gateway with a base path: /healthz at the root, every endpoint below the path', async () => {
    api.basePath = '/api'
    const script = await load('read-objects', { BASE_URL: `${BASE}/api` })
    const data = must(script.setup)()
    iterate(script, data, 5)
    expect(failedChecks()).toEqual([])
    expect(http.calls.filter((c) => c.tags.name === 'GET /healthz').map((c) => c.url)).toEqual([`${BASE}/healthz`])
    expect(http.calls.filter((c) => c.tags.name !== 'GET /healthz').every((c) => c.url.startsWith(`${BASE}/api/`))).toBe(true)
  })

  it('exports thresholds that fail the run on errors, latency or checks', async () => {
    const script = await load('read-objects', { PRESET: 'average', VUS: '7' })
    expect(script.options.thresholds).toMatchObject({ 'http_req_failed{scenario:read_objects}': ['rate<0.01'], 'checks{scenario:read_objects}': ['rate>0.99'] })
    expect(script.options.scenarios).toEqual({ read_objects: expect.objectContaining({ executor: 'ramping-vus' }) })
  })
})

describe('auth.ts', () => {
  it('logs in, reads with the token, queries, refreshes (rotating) and revokes', async () => {
    const script = await load('auth', { API_USERNAME: 'admin', API_PASSWORD: 'secret-password' })
    must(script.setup)()
    iterate(script, undefined, 3)
    expect(failedChecks()).toEqual([])
    const revoked = [...api.refreshTokens.values()].filter((s) => s === 'revoked').length
    expect(revoked).toBe(6) // per iteration: the rotated-out token and the revoked new one
    const read = must(http.calls.find((c) => c.tags.name === 'GET /objects/{id} (token)'))
    expect(read.headers.Authorization).toMatch(/^Bearer access-/)
  })

  it('refuses to start without credentials, and setup stops on a failed login', async () => {
    await expect(load('auth', {})).rejects.toThrow('set API_USERNAME and API_PASSWORD')
    const script = await load('auth', { API_USERNAME: 'admin', API_PASSWORD: 'wrong' })
    expect(() => must(script.setup)()).toThrow('login as admin answered 401')
  })
})

describe('write-objects.ts', () => {
  it('creates, relates, reorders and deletes under its own section; teardown leaves nothing behind', async () => {
    const before = [...api.objects.keys()]
    const script = await load('write-objects', { ADMIN_PASSWORD: 'secret-password' })
    const data = must(script.setup)() as { sectionId: number }
    expect(api.objects.get(data.sectionId)?.parents).toEqual([1])
    iterate(script, data, 5)
    expect(failedChecks()).toEqual([])
    expect(api.children(data.sectionId).length).toBe(1) // the last even iteration's document is kept
    must(script.teardown)(data)
    expect([...api.objects.keys()]).toEqual(before)
    const writes = http.calls.filter((c) => c.method !== 'GET' && !c.url.endsWith('/auth'))
    expect(writes.every((c) => c.headers.Authorization?.startsWith('Bearer '))).toBe(true)
    expect(names()).toContain('PUT /objects/{id}/children/{child_id}')
  })
})

describe('media.ts', () => {
  it('reads posters and the thumbnails they name at a few sizes, with bounded name tags', async () => {
    const script = await load('media', {})
    const data = must(script.setup)() as { posterIds: number[], sectionId?: number }
    expect(data.sectionId).toBeUndefined()
    iterate(script, data, 20)
    expect(failedChecks()).toEqual([])
    expect([...names()].sort()).toEqual(['GET /healthz', 'GET /objects', 'GET /poster/{id}', 'GET /thumbnails/…'])
    const sizes = new Set(http.calls.filter((c) => c.tags.name === 'GET /poster/{id}').map((c) => new URL(c.url).search))
    expect(sizes.size).toBeGreaterThan(1)
  })

  it('with IMAGE_FILE, uploads it, creates an image from the token, reads the original and deletes it; teardown removes the section', async () => {
    const before = [...api.objects.keys()]
    const script = await load('media', { IMAGE_FILE: 'photo.jpg', ADMIN_PASSWORD: 'secret-password' })
    const data = must(script.setup)() as { posterIds: number[], sectionId: number }
    iterate(script, data, 3)
    expect(failedChecks()).toEqual([])
    const uploads = http.calls.filter((c) => c.tags.name === 'POST /files/{type}/{name}')
    expect(uploads).toHaveLength(3)
    expect(must(uploads[0]).headers['Content-Type']).toBe('image/jpeg')
    expect(api.uploads.size).toBe(0)
    must(script.teardown)(data)
    expect([...api.objects.keys()]).toEqual(before)
  })

  it('refuses IMAGE_FILE without credentials', async () => {
    await expect(load('media', { IMAGE_FILE: 'photo.jpg' })).rejects.toThrow('set API_USERNAME and API_PASSWORD')
  })
})

describe('mixed.ts', () => {
  it('runs reads and writes as two scenarios of one run, splitting the rate by WRITE_SHARE; teardown leaves nothing behind', async () => {
    const before = [...api.objects.keys()]
    const script = await load('mixed', { ADMIN_PASSWORD: 'secret-password', PRESET: 'constant-rate', RATE: '50', WRITE_SHARE: '0.2' })
    expect(script.options.scenarios).toMatchObject({
      reads: { executor: 'constant-arrival-rate', rate: 40, exec: 'reads' },
      writes: { executor: 'constant-arrival-rate', rate: 10, exec: 'writes' },
    })
    expect(Object.keys(script.options.thresholds)).toEqual(expect.arrayContaining([
      'http_req_duration{scenario:reads,name:GET /objects/{id}}', 'http_req_duration{scenario:writes,name:POST /objects}',
    ]))
    const data = must(script.setup)()
    iterate(script, data, 10, 'reads')
    iterate(script, data, 4, 'writes')
    expect(failedChecks()).toEqual([])
    expect(names()).toContain('GET /objects/{id}/children')
    expect(names()).toContain('PUT /objects/{id}/children/{child_id}')
    must(script.teardown)(data)
    expect([...api.objects.keys()]).toEqual(before)
  })

  it('refuses a WRITE_SHARE that is not a fraction', async () => {
    await expect(load('mixed', { ADMIN_PASSWORD: 'secret-password', WRITE_SHARE: '1.5' })).rejects.toThrow('WRITE_SHARE must be a fraction between 0 and 1')
  })
})

describe('every script', () => {
  const SCRIPTS = readdirSync(new URL('../k6/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, ''))
  const CREDENTIALS = { API_USERNAME: 'admin', API_PASSWORD: 'secret-password' }

  it.each(SCRIPTS)('%s tags every request with the testid of the run (TESTID, or the script and the start time)', async (name) => {
    const given = await load(name, { ...CREDENTIALS, TESTID: 'ci-1234' })
    expect(given.options.tags).toEqual({ testid: 'ci-1234' })
    const generated = await load(name, CREDENTIALS)
    expect(generated.options.tags.testid).toMatch(new RegExp(`^${name}-\\d{8}T\\d{6}Z$`))
  })

  it.each(SCRIPTS)('%s: every threshold leaves setup() and teardown() out (a scenario\'s sub-metric)', async (name) => {
    const script = await load(name, CREDENTIALS)
    const scenarios = Object.keys(script.options.scenarios)
    expect(scenarios.length).toBeGreaterThan(0)
    for (const key of Object.keys(script.options.thresholds)) {
      expect(scenarios.some((s) => key.includes(`{scenario:${s},`) || key.endsWith(`{scenario:${s}}`)), key).toBe(true)
    }
  })

  it.each(SCRIPTS)('%s: handleSummary prints a short summary, then the whole summary as JSON on the last line, and writes SUMMARY_FILE', async (name) => {
    const script = await load(name, { ...CREDENTIALS, TESTID: 'ci-1', SUMMARY_FILE: '/results/summary.json' })
    const data: SummaryData = {
      metrics: {
        http_reqs: { type: 'counter', values: { count: 120 } },
        http_req_failed: { type: 'rate', values: { rate: 0.025 } },
        checks: { type: 'rate', values: { rate: 0.99 } },
        http_req_duration: { type: 'trend', values: { 'p(95)': 80.25, 'p(99)': 190 } },
        'http_req_failed{scenario:x}': { type: 'rate', values: { rate: 0.025 }, thresholds: { 'rate<0.01': { ok: false } } },
        'checks{scenario:x}': { type: 'rate', values: { rate: 1 }, thresholds: { 'rate>0.99': { ok: true } } },
      },
      state: { testRunDurationMs: 30000 },
    }
    const out = script.handleSummary(data)
    expect(Object.keys(out).sort()).toEqual(['/results/summary.json', 'stdout'])
    const lines = must(out.stdout).trimEnd().split('\n')
    expect(lines.slice(0, -1)).toEqual([
      'testid ci-1: 120 requests in 30 s, 2.50 % failed, checks 99.00 % passed',
      'http_req_duration p95 80.3 ms, p99 190.0 ms (setup and teardown included; the thresholds leave them out)',
      'thresholds: 1 passed, 1 failed',
      '  ✗ http_req_failed{scenario:x} rate<0.01',
    ])
    expect(JSON.parse(must(lines.at(-1)))).toEqual({ testid: 'ci-1', ...data })
    expect(out['/results/summary.json']).toBe(lines.at(-1))
    // without SUMMARY_FILE, stdout only
    expect(Object.keys((await load(name, CREDENTIALS)).handleSummary(data))).toEqual(['stdout'])
  })
})

describe('k6/README.md', () => {
  it('its thresholds table states every scenario\'s budgets as the scripts export them', async () => {
    const readme = readFileSync(new URL('../k6/README.md', import.meta.url), 'utf8')
    const table = readme.slice(readme.indexOf('## Thresholds'))
    const scripts = readdirSync(new URL('../k6/', import.meta.url)).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, ''))
    expect(scripts.length).toBeGreaterThan(4)
    for (const name of scripts) {
      const script = await load(name, { API_USERNAME: api.username, API_PASSWORD: api.password })
      for (const scenario of Object.keys(script.options.scenarios)) {
        const row = new RegExp(`^\\| ${name} \\| ${scenario} \\| (\\d+) / (\\d+) ms \\| (.+) \\|$`, 'm').exec(table)
        expect(row, `a row for ${name} / ${scenario}`).not.toBeNull()
        const [, p95, p99, perName] = must(row)
        const stated: Record<string, string[]> = { [`http_req_duration{scenario:${scenario}}`]: [`p(95)<${p95}`, `p(99)<${p99}`] }
        for (const m of must(perName).matchAll(/`([^`]+)` (\d+) \/ (\d+)/g)) stated[`http_req_duration{scenario:${scenario},name:${m[1]}}`] = [`p(95)<${m[2]}`, `p(99)<${m[3]}`]
        const budgets = Object.fromEntries(Object.entries(script.options.thresholds)
          .filter(([k]) => k.startsWith(`http_req_duration{scenario:${scenario}}`) || k.startsWith(`http_req_duration{scenario:${scenario},`)))
        expect(budgets, `${name} ${scenario}`).toEqual(stated)
      }
    }
  })
})
