import { Agent, request } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forgetAnswersOf } from './support/contract-fetch.js'
import { startServices, type Services } from './support/services.js'
import { ADMIN, http, removeDir } from './support/system.js'
import { must } from './support/must.js'

/**
 * Generated requests over every endpoint of the OpenAPI document, as a hostile client would send them:
 * odd methods, ids, nicknames and percent-encodings in the path, unknown and malformed query
 * parameters, bodies of any JSON shape or none, wrong content types, good, bad and missing tokens.
 * Every answer must be below 500, and every 4xx must carry the error body. FUZZ_SEED replays a run;
 * FUZZ_RUNS sets how many requests (default 10,000).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647)

interface Req { method: string, path: string, headers: Record<string, string>, body: string | undefined }
interface Res { status: number, type: string, body: string }

const agent = new Agent({ keepAlive: true, maxSockets: 4 })

/** A request sent as it is: the path is not normalised or re-encoded as fetch would. */
function send (base: string, r: Req): Promise<Res> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }))
    })
    req.on('error', reject)
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')))
    req.end(r.body)
  })
}

describe('hostile input never reaches a 5xx', () => {
  let services: Services
  let templates: { path: string, methods: string[] }[]
  let token: string
  let ids: number[]
  beforeAll(async () => {
    services = await startServices()
    forgetAnswersOf(services.base) // the generated requests are deliberately outside the document
    const login = await http(services.base, 'POST', '/auth', { body: { username: ADMIN.username, password: ADMIN.password } })
    token = login.body.data.access_token as string
    const doc = (await http(services.base, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> }
    templates = Object.entries(doc.paths).map(([path, ops]) => ({ path, methods: Object.keys(ops).map((m) => m.toUpperCase()) }))
    const section = await http(services.base, 'POST', '/objects', { headers: { authorization: `Bearer ${token}` }, body: { data: { object_type: 'section', title: 'Fuzz', parents: [1] } } })
    const document = await http(services.base, 'POST', '/objects', { headers: { authorization: `Bearer ${token}` }, body: { data: { object_type: 'document', title: 'Fuzzed', parents: [section.body.data.object.id] } } })
    ids = [1, section.body.data.object.id as number, document.body.data.object.id as number]
  })
  afterAll(async () => {
    agent.destroy()
    await services?.stop()
    if (services) removeDir(services.dataDir)
  })

  it(`answers ${RUNS} generated requests over every endpoint without a 5xx, with the error body on every 4xx`, async () => {
    const segment = fc.oneof(
      fc.constantFrom(...ids.map(String), '0', '-1', '9007199254740993', '1e3', '0x10', 'publication', 'fuzz', 'fuzzed', 'attach', 'seealso', 'children', 'auth'),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
      fc.constantFrom('%', '%zz', '%00', '%2F', '%2e%2e', '..', '.', '%C0%AF', '%ff', 'a%20b', '%F0%9F%98%80'),
      fc.nat().map(String),
    )
    const pathOf = fc.record({
      template: fc.constantFrom(...templates),
      values: fc.array(segment, { minLength: 8, maxLength: 8 }),
      extra: fc.array(segment, { maxLength: 2 }),
      slashes: fc.constantFrom('/', '/', '/', '//'),
    }).map(({ template, values, extra, slashes }) => {
      let i = 0
      const path = template.path.replace(/\{[^}]+\}/g, () => must(values[i++ % values.length]))
      return { template, path: (slashes + path.replace(/^\//, '')).replace(/\/$/, '') + extra.map((e) => `/${e}`).join('') }
    })
    const query = fc.array(fc.tuple(
      fc.oneof(fc.constantFrom('page', 'page_size', 'filter[object_type]', 'filter[query]', 'lang', 'access_token', 'width', 'height', 'expires', 'sig', 'mode'), fc.string({ maxLength: 8 })),
      fc.oneof(fc.constantFrom('1', '0', '-1', '100', '101', '99999999999999999999', 'document', 'en', 'xx-!!', '', 'null', '%', '%zz'), fc.string({ maxLength: 16 })),
    ), { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v === '%' || v === '%zz' ? v : encodeURIComponent(v)}`).join('&'))
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify({ data: v })),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.record({ id: fc.constantFrom(...ids, 0, -5), title: fc.string(), object_type: fc.constantFrom('document', 'section', 'image', 'area', 'nope'), parents: fc.array(fc.constantFrom(...ids, 0, 'x')) }, { requiredKeys: [] }).map((d) => JSON.stringify({ data: d })),
      fc.array(fc.record({ related_id: fc.oneof(fc.constantFrom(...ids), fc.integer()), child_id: fc.oneof(fc.constantFrom(...ids), fc.string()), priority: fc.oneof(fc.integer(), fc.string()), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }), { maxLength: 3 }).map((items) => JSON.stringify({ data: items })),
      fc.string({ maxLength: 40 }),
      fc.nat({ max: 200 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    )
    const arbitrary = fc.record({
      at: pathOf,
      method: fc.oneof(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), fc.constant('DOCUMENTED')),
      query,
      body,
      auth: fc.constantFrom('admin', 'none', 'garbage', 'basic', 'empty'),
      type: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'image/png', 'none'),
    }).map(({ at, method, query: q, body: b, auth, type }): Req => {
      const headers: Record<string, string> = {}
      if (auth === 'admin') headers.authorization = `Bearer ${token}`
      if (auth === 'garbage') headers.authorization = 'Bearer not.a.token'
      if (auth === 'basic') headers.authorization = 'Basic YWRtaW46eA=='
      if (auth === 'empty') headers.authorization = ''
      const m = method === 'DOCUMENTED' ? must(at.template.methods[0]) : method
      if (b !== undefined && m !== 'GET' && m !== 'HEAD') {
        if (type !== 'none') headers['content-type'] = type
        headers['content-length'] = String(Buffer.byteLength(b))
      }
      return { method: m, path: at.path + (q ? `?${q}` : ''), headers, body: m === 'GET' || m === 'HEAD' ? undefined : b }
    })

    console.log(`fuzz: ${RUNS} requests, seed ${SEED} (FUZZ_SEED=${SEED} replays them)`)
    const statuses = new Map<number, number>()
    await fc.assert(fc.asyncProperty(arbitrary, async (r) => {
      const res = await send(services.base, r)
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      const where = `${r.method} ${r.path} → ${res.status} ${res.body.slice(0, 300)}`
      expect(res.status, where).toBeLessThan(500)
      if (res.status >= 400 && r.method !== 'HEAD') {
        expect(res.type, where).toMatch(/^application\/json/)
        const error = (JSON.parse(res.body) as { error?: { status?: number, code?: string, message?: string } }).error
        expect(error?.status, where).toBe(res.status)
        expect(error?.code, where).toMatch(/^[A-Z_]+$/)
        expect(typeof error?.message, where).toBe('string')
      }
    }), { numRuns: RUNS, seed: SEED, endOnFailure: true })
    console.log(`fuzz answers by status: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(', ')}`)
    // nothing crashed: the whole system still answers
    expect((await http(services.base, 'GET', '/readyz')).status).toBe(200)
    expect((await http(services.base, 'GET', '/objects/1')).status).toBe(200)
    expect([...statuses.keys()].some((s) => s >= 200 && s < 300)).toBe(true)
  }, 600_000)
})
