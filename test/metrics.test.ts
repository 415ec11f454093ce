import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseExposition, sampleOf } from '@content/platform'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'

type Service = 'gateway' | 'objects' | 'auth' | 'poster'
const SERVICES: Service[] = ['gateway', 'objects', 'auth', 'poster']

let system: RunningSystem
let metricsUrl: Record<Service, string>
beforeAll(async () => {
  system = await startSystem()
  // the launcher publishes each service's scrape address next to the service addresses
  metricsUrl = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8')).metrics
})
afterAll(async () => {
  await system?.stop()
  if (system) removeDir(system.dataDir)
})

/** The sum of the series of `name` whose labels include these. */
const sampleIn = (text: string, name: string, labels: Record<string, string>) => sampleOf(parseExposition(text), name, labels)

async function scrape (service: Service): Promise<string> {
  const res = await fetch(metricsUrl[service])
  expect(res.status, service).toBe(200)
  expect(res.headers.get('content-type'), service).toMatch(/^text\/plain; version=0\.0\.4/)
  return res.text()
}

describe('Prometheus metrics of the running system', () => {
  it('every service publishes a scrape address on loopback, apart from the API port', async () => {
    expect(Object.keys(metricsUrl).sort()).toEqual([...SERVICES].sort())
    for (const service of SERVICES) expect(metricsUrl[service]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    expect(new Set(SERVICES.map((s) => new URL(metricsUrl[s]).port)).size).toBe(4)
    expect(new URL(metricsUrl.gateway).port).not.toBe(new URL(system.base).port)
    expect((await http(system.base, 'GET', '/metrics')).status).toBe(404)
  })

  it('after a few requests, the gateway times them by route and its backend calls, and the backends time the calls they answer', async () => {
    const before = await scrape('gateway')
    const read = await http(system.base, 'GET', '/objects/1')
    const missing = await http(system.base, 'GET', '/objects/987654?lang=en')
    expect(missing.status).toBe(404)
    const login = await http(system.base, 'POST', '/auth', { body: ADMIN })
    expect(login.status).toBe(200)
    expect((await http(system.base, 'GET', '/no-such-endpoint')).status).toBe(404)

    const gateway = await scrape('gateway')
    const route = (method: string, template: string, status: number) => {
      const labels = { http_request_method: method, http_route: template, http_response_status_code: String(status) }
      const name = 'http_server_request_duration_seconds_count'
      return sampleIn(gateway, name, labels) - sampleIn(before, name, labels)
    }
    expect(route('GET', '/objects/{object_id}', read.status)).toBe(1)
    expect(route('GET', '/objects/{object_id}', 404)).toBe(read.status === 404 ? 2 : 1)
    expect(route('POST', '/auth', 200)).toBe(1)
    expect(route('GET', 'unmatched', 404)).toBe(1)
    // the launcher polled /readyz until the gateway answered
    expect(sampleIn(gateway, 'http_server_request_duration_seconds_count', { http_request_method: 'GET', http_route: '/readyz', http_response_status_code: '200' })).toBeGreaterThanOrEqual(1)
    expect(gateway).not.toMatch(/http_route="[^"]*(987654|lang=|no-such)/)
    const client = (service: string, method: string) => sampleIn(gateway, 'rpc_client_call_duration_seconds_count',
      { rpc_system: 'grpc', rpc_service: service, rpc_method: method, rpc_grpc_status_code: '0' })
    expect(client('content.v1.AuthService', 'Login')).toBe(1)
    expect(client('content.v1.ObjectService', 'GetObject')).toBeGreaterThanOrEqual(1)

    const server = (text: string, service: string, method: string, code: number) => sampleIn(text, 'rpc_server_call_duration_seconds_count',
      { rpc_system: 'grpc', rpc_service: service, rpc_method: method, rpc_grpc_status_code: String(code) })
    const objects = await scrape('objects')
    expect(server(objects, 'content.v1.ObjectService', 'GetObject', 5)).toBeGreaterThanOrEqual(1)
    const auth = await scrape('auth')
    expect(server(auth, 'content.v1.AuthService', 'Login', 0)).toBe(1)
  })

  it('every service reports its process and event loop', async () => {
    for (const service of SERVICES) {
      const text = await scrape(service)
      expect(sampleIn(text, 'process_resident_memory_bytes', {}), service).toBeGreaterThan(0)
      expect(sampleIn(text, 'process_cpu_seconds_total', {}), service).toBeGreaterThan(0)
      expect(parseExposition(text).filter((s) => s.name === 'nodejs_eventloop_lag_p99_seconds'), service).toHaveLength(1)
    }
    // a service's own metrics are there from the start
    expect(await scrape('poster')).toContain('# TYPE content_thumbnail_renders_total counter')
    expect(await scrape('gateway')).toContain('# TYPE content_read_cache_hits_total counter')
  })
})
