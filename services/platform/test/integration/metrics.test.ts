import { Agent, request } from 'node:http'
import { status } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { z } from 'zod'
import { loadConfig, metricsEnv } from '../../src/config.js'
import { DomainError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { createMetricsServer, type MetricsServer } from '../../src/metrics/server.js'
import { createClient } from '../../src/rpc/client.js'
import { testIdentity } from '../../src/testing.js'
import { createRpcServer, type RpcServer, type ServiceImpl } from '../../src/rpc/server.js'
import { clientStreamHandler, openClientStream, openServerStream, serverStreamHandler } from '../../src/rpc/streams.js'
import { parseExposition, sampleOf as seriesSample } from '../../src/metrics/exposition.js'

const sampleOf = (text: string, name: string, labels: Record<string, string> = {}) => seriesSample(parseExposition(text), name, labels)

const silent = createLogger({ service: 'test', level: 'silent' })
const { PosterService } = loadContentProtos().content.v1
type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>
const unused = () => { throw new Error('not used by this test') }
const SERVICE = 'content.v1.PosterService'

let servers: RpcServer[] = []
let metricsServers: MetricsServer[] = []
afterEach(async () => {
  await Promise.all([...servers.map((s) => s.shutdown(500)), ...metricsServers.map((m) => m.close())])
  servers = []
  metricsServers = []
})

async function startRpc () {
  const rpc = createRpcServer(silent, { identity: testIdentity('test').verifiers })
  rpc.add(PosterService.service, {
    GetPoster: async (req) => {
      if (req.object_id === '404') throw new DomainError('OBJECT_NOT_FOUND', 'no such object')
      return { id: Number(req.object_id), thumbnail_path: '' }
    },
    GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('GetThumbnail', async function * () {
      yield { chunk: Buffer.from('abc') }
    }, silent),
    ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('ImportFile', async (parts) => {
      for await (const part of parts) if (part.chunk) throw new DomainError('UPLOAD_TYPE_INVALID', 'not an image')
      throw new Error('never reached')
    }, silent),
    GetStats: unused, Upload: unused, GetOriginal: unused,
  } as PosterImpl, SERVICE)
  const port = await rpc.listen('127.0.0.1', 0)
  servers.push(rpc)
  return createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(PosterService, `127.0.0.1:${port}`, { timeoutMs: 2_000, identity: testIdentity('test').identity })
}

async function startMetricsServer () {
  const server = await createMetricsServer('127.0.0.1', 0)
  metricsServers.push(server)
  return { server, url: `http://127.0.0.1:${server.port}` }
}

const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text()
const calls = (text: string, side: 'server' | 'client', method: string, code: number) =>
  sampleOf(text, `rpc_${side}_call_duration_seconds_count`, { rpc_system: 'grpc', rpc_service: SERVICE, rpc_method: method, rpc_grpc_status_code: String(code) })

describe('metrics endpoint', () => {
  it('when unary calls succeed and fail, then /metrics counts them on both ends under their method and status code', async () => {
    const { url } = await startMetricsServer()
    const client = await startRpc()
    const before = await scrape(url)
    await client.GetPoster({ object_id: '7' })
    await client.GetPoster({ object_id: '8' })
    await client.GetPoster({ object_id: '404' }).catch(() => undefined)
    const res = await fetch(`${url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const after = await res.text()
    expect(after).toContain('# TYPE rpc_server_call_duration_seconds histogram')
    for (const side of ['server', 'client'] as const) {
      expect(calls(after, side, 'GetPoster', status.OK) - calls(before, side, 'GetPoster', status.OK)).toBe(2)
      expect(calls(after, side, 'GetPoster', status.NOT_FOUND) - calls(before, side, 'GetPoster', status.NOT_FOUND)).toBe(1)
    }
    // buckets are cumulative up to +Inf, which equals the count
    const labels = { rpc_method: 'GetPoster', rpc_grpc_status_code: '0' }
    expect(sampleOf(after, 'rpc_server_call_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(calls(after, 'server', 'GetPoster', 0))
    expect(sampleOf(after, 'rpc_server_call_duration_seconds_bucket', { ...labels, le: '10' })).toBe(calls(after, 'server', 'GetPoster', 0))
    expect(sampleOf(after, 'rpc_server_call_duration_seconds_sum', labels)).toBeGreaterThan(0)
    client.close()
  })

  it('when a server stream ends, then the server side records it with its status', async () => {
    const { url } = await startMetricsServer()
    const client = await startRpc()
    const before = await scrape(url)
    const stream = openServerStream<v1.GetThumbnailRequest, v1.FileChunk__Output>(client.raw.GetThumbnail.bind(client.raw), { path: 'x', expires: '', signature: '', head: false }, { timeoutMs: 2_000 })
    // the stream is read to its end: the one chunk the handler sent arrives whole
    const chunks: Buffer[] = []
    for await (const part of stream) chunks.push(Buffer.from(part.chunk))
    expect(Buffer.concat(chunks).toString()).toBe('abc')
    await expect.poll(async () => calls(await scrape(url), 'server', 'GetThumbnail', status.OK) - calls(before, 'server', 'GetThumbnail', status.OK)).toBe(1)
    client.close()
  })

  it('when a client stream is refused, then the server side records it with the refusal\'s status', async () => {
    const { url } = await startMetricsServer()
    const client = await startRpc()
    const before = await scrape(url)
    const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(client.raw.ImportFile.bind(client.raw), { timeoutMs: 2_000 })
    stream.write({ chunk: Buffer.from('x') })
    stream.end()
    await expect(response).rejects.toMatchObject({ code: status.INVALID_ARGUMENT })
    const after = await scrape(url)
    expect(calls(after, 'server', 'ImportFile', status.INVALID_ARGUMENT) - calls(before, 'server', 'ImportFile', status.INVALID_ARGUMENT)).toBe(1)
    client.close()
  })

  it('serves the process and event loop metrics', async () => {
    const { url } = await startMetricsServer()
    const text = await scrape(url)
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'))
    }
  })

  it('answers HEAD /metrics with the headers only, and 404 to any other path or method', async () => {
    const { url } = await startMetricsServer()
    const head = await fetch(`${url}/metrics`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await head.text()).toBe('')
    expect((await fetch(`${url}/metrics?x=1`)).status).toBe(200)
    for (const [method, path] of [['GET', '/'], ['GET', '/metrics/x'], ['GET', '/healthz'], ['POST', '/metrics'], ['DELETE', '/metrics']]) {
      expect((await fetch(`${url}${path}`, { method })).status, `${method} ${path}`).toBe(404)
    }
  })

  it('when closed with a scraper still connected, then close resolves and the port stops answering', async () => {
    const { server, url } = await startMetricsServer()
    // a keep-alive connection left open, as Prometheus keeps between scrapes
    await new Promise<void>((resolve) => {
      request(`${url}/metrics`, { agent: new Agent({ keepAlive: true }) }, (res) => { res.resume(); res.on('end', resolve) }).end()
    })
    const started = Date.now()
    await server.close()
    expect(Date.now() - started).toBeLessThan(1_000)
    await expect(fetch(`${url}/metrics`)).rejects.toThrow()
    metricsServers = metricsServers.filter((m) => m !== server)
  })

  it('when the port is taken, then starting fails', async () => {
    const { server } = await startMetricsServer()
    await expect(createMetricsServer('127.0.0.1', server.port)).rejects.toThrow(/EADDRINUSE/)
  })
})

describe('metricsEnv', () => {
  const schema = z.object(metricsEnv)
  it('when METRICS_PORT is unset or empty, then there is no endpoint; the host defaults to every interface', () => {
    expect(loadConfig(schema, {})).toEqual({ METRICS_HOST: '0.0.0.0' })
    expect(loadConfig(schema, { METRICS_PORT: '' }).METRICS_PORT).toBeUndefined()
  })

  it('when METRICS_PORT is set, then it is a port number, and anything else is refused', () => {
    expect(loadConfig(schema, { METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' })).toEqual({ METRICS_PORT: 9464, METRICS_HOST: '127.0.0.1' })
    expect(() => loadConfig(schema, { METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/)
    expect(() => loadConfig(schema, { METRICS_PORT: 'abc' })).toThrow(/METRICS_PORT/)
  })
})
