import { status } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { DomainError, toTransportError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { checkHealth, createClient } from '../../src/rpc/client.js'
import { MAX_MESSAGE_BYTES } from '../../src/rpc/message-size.js'
import { testIdentity } from '../../src/testing.js'
import { createRpcServer, type RpcServer, type ServiceImpl } from '../../src/rpc/server.js'

const silent = createLogger({ service: 'test', level: 'silent' })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const { PosterService } = loadContentProtos().content.v1

let servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.shutdown(500)))
  servers = []
})

type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>
const unused = () => { throw new Error('not used by this test') }

/** A PosterService whose GetPoster is the one under test; the other methods are never called. */
const withGetPoster = (GetPoster: PosterImpl['GetPoster']): PosterImpl => ({
  GetPoster, GetStats: unused, Upload: unused, ImportFile: unused, GetThumbnail: unused, GetOriginal: unused,
})

async function start (impl: PosterImpl) {
  const rpc = createRpcServer(silent, { identity: testIdentity('test').verifiers })
  rpc.add(PosterService.service, impl, 'content.v1.PosterService')
  const port = await rpc.listen('127.0.0.1', 0)
  servers.push(rpc)
  const address = `127.0.0.1:${port}`
  return { rpc, address, client: createClient<v1.PosterServiceDefinition>(PosterService, address, { timeoutMs: 2_000, identity: testIdentity('test').identity }) }
}

describe('rpc server and client', () => {
  it('when a handler returns, then the client receives its response', async () => {
    const { client } = await start(withGetPoster(async (req) => ({ id: Number(req.object_id), thumbnail_path: `/t/${req.width}` })))
    await expect(client.GetPoster({ object_id: '7', width: '5' })).resolves.toEqual({ id: 7, thumbnail_path: '/t/5' })
    client.close()
  })

  it('when a handler throws a domain error, then its status and reason cross the wire', async () => {
    const { client } = await start(withGetPoster(async () => { throw new DomainError('OBJECT_NOT_FOUND', 'no such object', { id: 3 }) }))
    const err = await client.GetPoster({ object_id: '3' }).catch((e: unknown) => e)
    expect(toTransportError(err)).toMatchObject({ grpcStatus: status.NOT_FOUND, reason: 'OBJECT_NOT_FOUND', message: 'no such object', details: { id: 3 } })
    client.close()
  })

  it('when a handler fails unexpectedly, then the client gets INTERNAL without the internal message', async () => {
    const { client } = await start(withGetPoster(async () => { throw new Error('SQLITE_CORRUPT at /secret/path') }))
    const err = await client.GetPoster({ object_id: '1' }).catch((e: unknown) => e) as { code: number, details: string }
    expect(err.code).toBe(status.INTERNAL)
    expect(err.details).not.toContain('secret')
    expect(toTransportError(err)).toMatchObject({ httpStatus: 500, expose: false })
    client.close()
  })

  it('when an answer is past grpc\'s 4 MiB default, then it crosses every channel and server of the platform', async () => {
    const big = 'x'.repeat(6 * 1024 * 1024)
    const { client } = await start(withGetPoster(async () => ({ id: 1, thumbnail_path: big })))
    expect((await client.GetPoster({ object_id: '1' })).thumbnail_path).toHaveLength(big.length)
    expect(MAX_MESSAGE_BYTES).toBeGreaterThanOrEqual(256 * 1024 * 1024)
    client.close()
  })

  it('when an answer is past the limit, then the client learns it is too large, not to retry later', async () => {
    const rpc = createRpcServer(silent, { identity: testIdentity('test').verifiers, grpc: { 'grpc.max_send_message_length': 1024 } })
    rpc.add(PosterService.service, withGetPoster(async () => ({ id: 1, thumbnail_path: 'x'.repeat(4096) })), 'content.v1.PosterService')
    const port = await rpc.listen('127.0.0.1', 0)
    servers.push(rpc)
    const client = createClient<v1.PosterServiceDefinition>(PosterService, `127.0.0.1:${port}`, { timeoutMs: 2_000, identity: testIdentity('test').identity })
    const err = await client.GetPoster({ object_id: '1' }).catch((e: unknown) => e) as { code: number }
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED)
    expect(toTransportError(err)).toMatchObject({ httpStatus: 500, reason: 'ANSWER_TOO_LARGE', expose: true })
    client.close()
  })

  it('when a call outlives its deadline, then the client fails with DEADLINE_EXCEEDED instead of hanging', async () => {
    const { client } = await start(withGetPoster(async () => { await sleep(1_000); return { id: 1, thumbnail_path: '' } }))
    const started = Date.now()
    const err = await client.GetPoster({ object_id: '1' }, { timeoutMs: 100 }).catch((e: unknown) => e) as { code: number }
    expect(err.code).toBe(status.DEADLINE_EXCEEDED)
    expect(Date.now() - started).toBeLessThan(800)
    client.close()
  })

  it('when shutdown starts, then health stops answering SERVING, the in-flight call still finishes, and new calls fail', async () => {
    const { rpc, address, client } = await start(withGetPoster(async () => { await sleep(300); return { id: 42, thumbnail_path: '' } }))
    expect(await checkHealth(address, 1_000)).toBe(true)
    const inFlight = client.GetPoster({ object_id: '1' })
    await sleep(50)
    const healthDuring = new Promise<boolean>((resolve) => {
      // Health is asked on a fresh channel while the server drains.
      setTimeout(() => { checkHealth(address, 500).then(resolve) }, 10)
    })
    const closed = rpc.shutdown(2_000)
    expect(await healthDuring).toBe(false)
    await expect(inFlight).resolves.toMatchObject({ id: 42 })
    await closed
    const after = await client.GetPoster({ object_id: '1' }, { timeoutMs: 300 }).catch((e: unknown) => e) as { code: number }
    expect([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]).toContain(after.code)
    client.close()
  })

  it('setServing reports a dependency outage as NOT_SERVING for the whole server and each service, and takes it back', async () => {
    const { rpc, address } = await start(withGetPoster(unused))
    rpc.setServing(false)
    expect(await checkHealth(address, 1_000)).toBe(false)
    expect(await checkHealth(address, 1_000, 'content.v1.PosterService')).toBe(false)
    rpc.setServing(true)
    expect(await checkHealth(address, 1_000)).toBe(true)
    expect(await checkHealth(address, 1_000, 'content.v1.PosterService')).toBe(true)
  })

  it('when nothing listens at an address, then checkHealth answers false within its deadline', async () => {
    const started = Date.now()
    expect(await checkHealth('127.0.0.1:1', 300)).toBe(false)
    expect(Date.now() - started).toBeLessThan(1_500)
  })

  it('when a backend restarts on the same address after being away a while, then the client reaches it again within 1.5 s', async () => {
    const impl = withGetPoster(async () => ({ id: 1, thumbnail_path: '' }))
    const first = await start(impl)
    const port = Number(first.address.split(':')[1])
    await expect(first.client.GetPoster({ object_id: '1' })).resolves.toMatchObject({ id: 1 })
    await first.rpc.shutdown(200)
    // calls while it is away fail fast and push the reconnect backoff up
    const until = Date.now() + 3_000
    while (Date.now() < until) {
      await first.client.GetPoster({ object_id: '1' }, { timeoutMs: 200 }).catch(() => undefined)
      await sleep(50)
    }
    const again = createRpcServer(silent, { identity: testIdentity('test').verifiers })
    again.add(PosterService.service, impl, 'content.v1.PosterService')
    await again.listen('127.0.0.1', port)
    servers.push(again)
    const back = Date.now()
    let reached = false
    while (!reached && Date.now() - back < 5_000) {
      reached = await first.client.GetPoster({ object_id: '1' }, { timeoutMs: 200 }).then(() => true, () => false)
      if (!reached) await sleep(25)
    }
    expect(reached).toBe(true)
    expect(Date.now() - back).toBeLessThan(1_500)
    first.client.close()
  })
})
