import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { status } from '@grpc/grpc-js'
import { afterEach, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { DomainError, toTransportError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { createClient } from '../../src/rpc/client.js'
import { testIdentity } from '../../src/testing.js'
import { createRpcServer, type RpcServer, type ServiceImpl } from '../../src/rpc/server.js'
import { clientStreamHandler, openClientStream, openServerStream, serverStreamHandler } from '../../src/rpc/streams.js'
import { must } from '../support/must.js'

const silent = createLogger({ service: 'test', level: 'silent' })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const { PosterService } = loadContentProtos().content.v1
type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>
const unused = () => { throw new Error('not used by this test') }

let servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.shutdown(500)))
  servers = []
})

async function start (impl: Partial<PosterImpl>) {
  const rpc = createRpcServer(silent, { identity: testIdentity('test').verifiers })
  rpc.add(PosterService.service, {
    GetPoster: unused, GetStats: unused, Upload: unused, ImportFile: unused, GetThumbnail: unused, GetOriginal: unused, ...impl,
  } as PosterImpl, 'content.v1.PosterService')
  const port = await rpc.listen('127.0.0.1', 0)
  servers.push(rpc)
  const client = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(PosterService, `127.0.0.1:${port}`, { timeoutMs: 2_000, identity: testIdentity('test').identity })
  return client
}

const header = (name: string): v1.UploadPart => ({ header: { file_name: name, object_type: 'image', mime_type: 'image/png', declared_size: -1 } })

describe('client streams', () => {
  it('when the client sends a header and chunks, then the handler reads them in order and its answer arrives', async () => {
    const client = await start({
      ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('ImportFile', async (parts) => {
        let name = ''
        let size = 0
        for await (const part of parts) {
          if (part.header) name = part.header.file_name
          else size += part.chunk?.length ?? 0
        }
        return { key: 'k', name, mime_type: 'image/png', size, width: 0, height: 0 }
      }, silent),
    })
    const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(client.raw.ImportFile.bind(client.raw), { timeoutMs: 2_000 })
    const body = Readable.from([Buffer.alloc(70_000, 1), Buffer.alloc(70_000, 2), Buffer.alloc(10, 3)])
    await pipeline(body, new Transform({ objectMode: true, transform: (chunk, _e, done) => done(null, { chunk }) }), async function * (source) {
      yield header('a.png')
      yield * source
    }, stream as unknown as NodeJS.WritableStream)
    await expect(response).resolves.toMatchObject({ name: 'a.png', size: 140_010 })
    client.close()
  })

  it('when the handler refuses early, then the client gets the domain error before it finished sending', async () => {
    let read = 0
    const client = await start({
      ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('ImportFile', async (parts) => {
        for await (const part of parts) {
          if (part.chunk && part.chunk.length > 0 && ++read === 2) throw new DomainError('UPLOAD_MAX_FILESIZE_EXCEEDED', 'stop sending')
        }
        throw new Error('never reached')
      }, silent),
    })
    const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(client.raw.ImportFile.bind(client.raw), { timeoutMs: 2_000 })
    stream.write(header('b.png'))
    let sent = 0
    const sending = (async () => {
      // a client that would send 100 chunks, stopping when the answer is in
      let done = false
      response.catch(() => { done = true })
      while (!done && sent < 100) {
        stream.write({ chunk: Buffer.alloc(1_000) })
        sent++
        await sleep(5)
      }
    })()
    const err = await response.catch((e: unknown) => e)
    await sending
    expect(toTransportError(err)).toMatchObject({ grpcStatus: status.INVALID_ARGUMENT, reason: 'UPLOAD_MAX_FILESIZE_EXCEEDED' })
    expect(sent).toBeLessThan(100)
    stream.end()
    client.close()
  })

  it('when the client cancels, then the handler sees its signal aborted', async () => {
    let aborted: () => void
    const sawAbort = new Promise<void>((r) => { aborted = r })
    const client = await start({
      ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('ImportFile', async (_parts, signal) => {
        signal.addEventListener('abort', () => aborted())
        await sleep(5_000)
        throw new Error('not answered')
      }, silent),
    })
    const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(client.raw.ImportFile.bind(client.raw), { timeoutMs: 2_000 })
    stream.write(header('c.png'))
    await sleep(50)
    stream.cancel()
    await sawAbort
    expect((await response.catch((e: unknown) => e) as { code: number }).code).toBe(status.CANCELLED)
    client.close()
  })
})

describe('server streams', () => {
  const chunks = (n: number, size: number): v1.FileChunk[] => Array.from({ length: n }, (_, i) => ({ chunk: Buffer.alloc(size, i) }))

  it('when the handler yields a header and chunks, then the client reads them all in order, with backpressure', async () => {
    const client = await start({
      GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('GetThumbnail', async function * (req) {
        yield { header: { mime_type: 'image/png', size: 200 * 65_536, total_size: 0, etag: `"${req.path}"`, public: true, immutable: true, expires_at: 0, file_name: '', inline: true } }
        yield * chunks(200, 65_536)
      }, silent),
    })
    const call = openServerStream<v1.GetThumbnailRequest, v1.FileChunk__Output>(client.raw.GetThumbnail.bind(client.raw), { path: 'x' }, { timeoutMs: 5_000 })
    let head: v1.FileHeader__Output | null = null
    let bytes = 0
    let order = true
    let index = 0
    for await (const message of call as AsyncIterable<v1.FileChunk__Output>) {
      if (message.header) head = message.header
      else {
        order &&= must(message.chunk)[0] === index % 256
        index++
        bytes += must(message.chunk).length
        if (index % 50 === 0) await sleep(5) // a slow reader
      }
    }
    expect(head).toMatchObject({ mime_type: 'image/png', etag: '"x"' })
    expect(bytes).toBe(200 * 65_536)
    expect(order).toBe(true)
    client.close()
  })

  it('when the handler fails after sending, then the client sees the domain error at the end of the stream', async () => {
    const client = await start({
      GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('GetThumbnail', async function * () {
        yield * chunks(2, 10)
        throw new DomainError('FILE_NOT_FOUND', 'gone midway')
      }, silent),
    })
    const call = openServerStream<v1.GetThumbnailRequest, v1.FileChunk__Output>(client.raw.GetThumbnail.bind(client.raw), { path: 'x' }, { timeoutMs: 2_000 })
    let received = 0
    const err = await (async () => {
      for await (const _ of call as AsyncIterable<v1.FileChunk__Output>) received++
    })().catch((e: unknown) => e)
    expect(received).toBe(2)
    expect(toTransportError(err)).toMatchObject({ grpcStatus: status.NOT_FOUND, reason: 'FILE_NOT_FOUND' })
    client.close()
  })

  it('when the client cancels, then the generator stops producing', async () => {
    let produced = 0
    let stopped: () => void
    const finished = new Promise<void>((r) => { stopped = r })
    const client = await start({
      GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('GetThumbnail', async function * (_req, signal) {
        try {
          while (!signal.aborted) {
            produced++
            yield { chunk: Buffer.alloc(65_536) }
          }
        } finally {
          stopped()
        }
      }, silent),
    })
    const call = openServerStream<v1.GetThumbnailRequest, v1.FileChunk__Output>(client.raw.GetThumbnail.bind(client.raw), { path: 'x' }, { timeoutMs: 5_000 })
    call.on('error', () => {})
    for await (const _ of call as AsyncIterable<v1.FileChunk__Output>) {
      call.cancel()
      break
    }
    await finished
    const at = produced
    await sleep(100)
    expect(produced).toBe(at)
    expect(produced).toBeLessThan(1_000)
    client.close()
  })
})
