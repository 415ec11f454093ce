import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as grpc from '@grpc/grpc-js'
import { createClient, createLogger, openClientStream, openServerStream, toTransportError } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { actingAsRequested, TEST_ADMINISTRATOR, testIdentity, userTokenFor, type TestCaller } from '@content/platform/testing'
import { createImaging, type Imaging } from '../../src/imaging/sharp.js'
import { createObjectsClient } from '../../src/rpc/objects.client.js'
import { buildPosterServer, POSTER_ADMINISTRATION } from '../../src/server.js'
import type { MediaSettings } from '../../src/services/deps.js'
import { sweepMedia } from '../../src/services/gc.js'
import { openLocalStore } from '../../src/store/local/local.store.js'
import { migrateLocalMedia } from '../../src/store/local/schema.local.js'
import type { MediaStore } from '../../src/store/media.store.js'
import { startFakeMedia } from './fake-media.js'

export const SIGNING_KEY = 'k'.repeat(40)
export const WRITER = { user_id: 7, groups: ['editor'], may_write: true }
export const READER = { user_id: 8, groups: ['members'], may_write: false }

export const DEFAULT_SETTINGS: MediaSettings = {
  signingKey: SIGNING_KEY,
  uploadMaxBytes: 25 * 1_048_576,
  uploadMaxPixels: 50_000_000,
  uploadConcurrency: 8,
  thumbnailUrlTtl: 3_600,
  renderConcurrency: 2,
  renderQueue: 32,
  renderTimeoutMs: 10_000,
}

export interface HarnessOptions {
  settings?: Partial<MediaSettings>
  /** wraps the real image work (to slow it down, count it, break it) */
  imaging?: (real: Imaging) => Imaging
  thumbnailMaxBytes?: number
}

/** An upload header and the user it is sent for */
export type Header = Partial<v1.UploadHeader> & { caller?: TestCaller | null }
export type PosterClient = ReturnType<typeof createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>>

export interface FileReply {
  header: v1.FileHeader__Output
  bytes: Buffer
  chunks: number
}

/** The poster service on 127.0.0.1:0 over a local store in a temp dir, asking a fake objects service. */
export async function startPoster (options: HarnessOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'poster-'))
  const clock = { offset: 0 }
  const now = () => Date.now() + clock.offset
  const { fake, address: fakeAddress, rpc: fakeRpc } = await startFakeMedia()
  const log = createLogger({ service: 'poster', level: 'silent' })
  const settings = { ...DEFAULT_SETTINGS, ...options.settings }
  await migrateLocalMedia(join(dir, 'media'), 'migrate')
  const store: MediaStore = await openLocalStore(join(dir, 'media'), { thumbnailMaxBytes: options.thumbnailMaxBytes ?? 1 << 30, now })
  const objects = createObjectsClient(fakeAddress, { timeoutMs: 5_000, identity: testIdentity('poster').identity })
  const real = createImaging({ maxPixels: settings.uploadMaxPixels, timeoutMs: settings.renderTimeoutMs, renderConcurrency: settings.renderConcurrency })
  const imaging = options.imaging ? options.imaging(real) : real
  const { rpc, deps } = buildPosterServer({ log, rpc: { identity: testIdentity('poster').verifiers }, settings, store, objects, imaging, now })
  const port = await rpc.listen('127.0.0.1', 0)
  const client: PosterClient = actingAsRequested(createClient(loadContentProtos().content.v1.PosterService, `127.0.0.1:${port}`, { timeoutMs: 20_000, identity: testIdentity('gateway').identity }), POSTER_ADMINISTRATION)
  const writerToken = await userTokenFor(WRITER)
  return {
    dir, clock, now, fake, store, deps, client, settings,
    /** one sweep of the media collector with this grace */
    sweep: (graceMs: number) => sweepMedia({ store, objects, now, graceMs }),
    getPoster: async (caller: TestCaller | null, req: v1.GetPosterRequest) => client.GetPoster(req, { userToken: await userTokenFor(caller) }),
    upload: (header: Header, body: Buffer | Buffer[]) => sendFile(client, 'Upload', header, body),
    /** an Upload stream sent for WRITER, written by the test */
    openUpload: <Res>(options: { timeoutMs: number, requestId?: string }) =>
      openClientStream<v1.UploadPart, Res>(client.raw.Upload.bind(client.raw) as Parameters<typeof openClientStream<v1.UploadPart, Res>>[0], { ...options, userToken: writerToken }),
    importFile: (header: Header, body: Buffer | Buffer[]) => sendFile(client, 'ImportFile', header, body),
    thumbnail: (req: v1.GetThumbnailRequest) => readFile(openServerStream(client.raw.GetThumbnail.bind(client.raw), req, { timeoutMs: 20_000 })),
    original: async ({ caller, ...req }: v1.GetOriginalRequest & { caller?: TestCaller }) =>
      readFile(openServerStream(client.raw.GetOriginal.bind(client.raw), req, { timeoutMs: 20_000, userToken: await userTokenFor(caller) })),
    /** files under media/<part> (originals, thumbnails, staging) */
    files: (part: string) => listFiles(join(dir, 'media', part)),
    async close () {
      client.close()
      objects.close()
      await rpc.shutdown(1_000)
      await fakeRpc.shutdown(1_000)
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export type Harness = Awaited<ReturnType<typeof startPoster>>

export const uploadHeader = (over: Header = {}): Header => ({
  caller: WRITER, object_type: 'image', file_name: 'photo.jpg', mime_type: 'image/jpeg', declared_size: -1, writable_types: ['image', 'video', 'audio', 'b_e_file'], ...over,
})

/** Sends a header and the body in 64 KiB pieces, then waits for the answer. */
export async function sendFile<Res> (client: PosterClient, method: 'Upload' | 'ImportFile', header: Header, body: Buffer | Buffer[]): Promise<Res> {
  const start = client.raw[method].bind(client.raw) as Parameters<typeof openClientStream<v1.UploadPart, Res>>[0]
  const { caller, ...fields } = header
  const userToken = await userTokenFor(caller ?? (method === 'ImportFile' ? TEST_ADMINISTRATOR : undefined))
  const { stream, response } = openClientStream<v1.UploadPart, Res>(start, { timeoutMs: 20_000, userToken })
  stream.write({ header: fields })
  for (const part of Array.isArray(body) ? body : [body]) {
    for (let at = 0; at < part.length; at += 65_536) stream.write({ chunk: part.subarray(at, at + 65_536) })
  }
  stream.end()
  return response
}

/** Reads a file stream whole: its header, the bytes and how many messages carried them. */
export async function readFile (call: grpc.ClientReadableStream<v1.FileChunk__Output>): Promise<FileReply> {
  let header: v1.FileHeader__Output | undefined
  const parts: Buffer[] = []
  for await (const message of call as AsyncIterable<v1.FileChunk__Output>) {
    if (message.header) header = message.header
    else if (message.chunk) parts.push(message.chunk)
  }
  if (!header) throw new Error('no header')
  return { header, bytes: Buffer.concat(parts), chunks: parts.length }
}

function listFiles (dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)
  } catch {
    return []
  }
}

/** The failure of a call as the gateway would see it. */
export async function failure (promise: Promise<unknown>): Promise<{ httpStatus: number, reason: string, message: string, details: unknown }> {
  try {
    await promise
  } catch (err) {
    const t = toTransportError(err)
    return { httpStatus: t.httpStatus, reason: t.reason, message: t.message, details: t.details }
  }
  throw new Error('expected the call to fail')
}

/** `thumbnails/<path>?expires=…&sig=…` → the GetThumbnail request the gateway would make. */
export function thumbnailRequest (thumbnailPath: string): { path: string, expires: string, signature: string } {
  const url = new URL(thumbnailPath, 'http://x/')
  return {
    path: url.pathname.replace(/^\/thumbnails\//, ''),
    expires: url.searchParams.get('expires') ?? '',
    signature: url.searchParams.get('sig') ?? '',
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
