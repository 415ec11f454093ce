import { connect, createServer, type Server, type Socket } from 'node:net'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { createLogger } from '../../src/logger.js'
import { createClient } from '../../src/rpc/client.js'
import { testIdentity } from '../../src/testing.js'
import { createRpcServer, type RpcServer, type ServiceImpl } from '../../src/rpc/server.js'
import { clientStreamHandler, openClientStream } from '../../src/rpc/streams.js'

// A server past its maximum connection age sends GOAWAY: the client opens a new connection (re-resolving
// the name, which is how new replicas get traffic) while calls and streams already running finish.
const silent = createLogger({ service: 'test', level: 'silent' })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const { PosterService } = loadContentProtos().content.v1
type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>
const unused = () => { throw new Error('not used by this test') }

const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

/** A TCP relay in front of the server that counts the connections clients open. */
async function countingRelay (target: number): Promise<{ port: number, connections: () => number }> {
  let connections = 0
  const open = new Set<Socket>()
  const relay: Server = createServer((socket) => {
    connections++
    const upstream = connect(target, '127.0.0.1')
    for (const s of [socket, upstream]) {
      open.add(s)
      s.once('close', () => open.delete(s))
    }
    socket.pipe(upstream).pipe(socket)
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
  })
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r))
  cleanup.push(() => new Promise<void>((r) => {
    relay.close(() => r())
    for (const s of open) s.destroy()
  }))
  const address = relay.address()
  return { port: typeof address === 'object' && address ? address.port : 0, connections: () => connections }
}

async function start (maxConnectionAgeMs: number) {
  const rpc: RpcServer = createRpcServer(silent, { maxConnectionAgeMs, identity: testIdentity('test').verifiers })
  rpc.add(PosterService.service, {
    GetPoster: unused, Upload: unused, GetThumbnail: unused, GetOriginal: unused,
    GetStats: async () => ({ renders: 1 }),
    ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('ImportFile', async (parts) => {
      let size = 0
      for await (const part of parts) size += part.chunk?.length ?? 0
      return { key: 'k', name: 'slow.png', mime_type: 'image/png', size, width: 0, height: 0 }
    }, silent),
  } as unknown as PosterImpl, 'content.v1.PosterService')
  const port = await rpc.listen('127.0.0.1', 0)
  cleanup.push(() => rpc.shutdown(500))
  const relay = await countingRelay(port)
  const client = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(PosterService, `127.0.0.1:${relay.port}`, { timeoutMs: 2_000, identity: testIdentity('test').identity })
  cleanup.push(() => client.close())
  return { client, connections: relay.connections }
}

/** Unary calls every 50 ms for `ms`; every one must succeed. */
async function callFor (client: Awaited<ReturnType<typeof start>>['client'], ms: number): Promise<number> {
  let calls = 0
  for (const until = Date.now() + ms; Date.now() < until; calls++) {
    await client.GetStats({})
    await sleep(50)
  }
  return calls
}

describe('maximum connection age', () => {
  it('past the age the client reconnects, and no unary call fails across the reconnections', async () => {
    const { client, connections } = await start(300)
    expect(await callFor(client, 1_500)).toBeGreaterThan(10)
    expect(connections()).toBeGreaterThanOrEqual(3)
  })

  it('below the age one connection carries every call', async () => {
    const { client, connections } = await start(60_000)
    await callFor(client, 600)
    expect(connections()).toBe(1)
  })

  it('a stream that outlives the age runs to its end (no grace limit cuts it)', async () => {
    const { client } = await start(200)
    const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(client.raw.ImportFile.bind(client.raw), { timeoutMs: 5_000 })
    async function * trickle () {
      yield { header: { file_name: 'slow.png', object_type: 'image', mime_type: 'image/png', declared_size: -1 } }
      for (let i = 0; i < 12; i++) {
        await sleep(100)
        yield { chunk: Buffer.alloc(1_000, i) }
      }
    }
    await pipeline(Readable.from(trickle()), new Transform({ objectMode: true, transform: (part, _e, done) => done(null, part) }), stream as unknown as NodeJS.WritableStream)
    await expect(response).resolves.toMatchObject({ size: 12_000 })
  })
})
