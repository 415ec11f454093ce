import { createHash, type Hash } from 'node:crypto'
import { clientStreamHandler, createLogger, DomainError, identityOf, serverStreamHandler, type Caller, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import type { ObjectsFake } from './fake-objects.js'

type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>

const silent = createLogger({ service: 'fake-poster', level: 'silent' })
const CHUNK = 64 * 1024

/** What the fake saw of one Upload call, updated while the bytes arrive. */
export interface UploadSeen {
  header: v1.UploadHeader__Output | null
  chunks: number
  bytes: number
  sha256: Hash
  ended: boolean
}

export interface StoredFile { name: string, mime: string, bytes: Buffer, inline: boolean }

/** Deterministic bytes: the same seed and size always give the same content. */
export function fakeBytes (size: number, seed: number): Buffer {
  const out = Buffer.alloc(size)
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff
  return out
}

/** The fake's signature of a thumbnail URL (the real one is an HMAC; only agreement matters here). */
export function signThumbnail (path: string, expires: string): string {
  return createHash('sha256').update(`v1\n${path}\n${expires}`).digest('base64url').slice(0, 22)
}

export const IMAGE_KEY = 'a'.repeat(64)
/** A thumbnail key the fake answers THUMBNAIL_BUSY for. */
export const BUSY_KEY = 'b'.repeat(64)
const THUMB = /^([0-9a-f]{64}|placeholder)\/([1-9][0-9]{0,3})x([1-9][0-9]{0,3})\.(jpg|png)$/
const DIMENSION = /^[1-9][0-9]{0,3}$/

function byteRange (req: v1.GetOriginalRequest__Output, total: number, etag: string): { start: number, end: number } | undefined {
  if (req.if_range !== '' && req.if_range !== etag) return undefined
  const unsatisfiable = () => new DomainError('RANGE_NOT_SATISFIABLE', 'the range is outside the file', { total_size: total })
  if (typeof req.suffix_length === 'number') {
    if (req.suffix_length === 0) throw unsatisfiable()
    return { start: Math.max(0, total - req.suffix_length), end: total - 1 }
  }
  if (typeof req.range_start !== 'number') return undefined
  if (req.range_start >= total) throw unsatisfiable()
  return { start: req.range_start, end: Math.min(req.range_end ?? total - 1, total - 1) }
}

function * chunksOf (bytes: Buffer): Generator<v1.FileChunk> {
  for (let at = 0; at < bytes.length; at += CHUNK) yield { chunk: bytes.subarray(at, at + CHUNK) }
}

/**
 * The poster service as the gateway sees it: uploads counted and hashed, originals of object 4 (an image)
 * and 6 (protected) with the objects fake's read checks, thumbnails checked against `signThumbnail`.
 */
export class PosterFake {
  readonly uploads: UploadSeen[] = []
  /** originals by object id */
  readonly files = new Map<string, StoredFile>([
    ['4', { name: 'été 2024.jpg', mime: 'image/jpeg', bytes: fakeBytes(300_000, 4), inline: true }],
    ['6', { name: 'secret.pdf', mime: 'application/pdf', bytes: fakeBytes(5_000, 6), inline: false }],
  ])

  /** uploads over this many bytes are refused (declared at once, counted while streaming) */
  maxBytes = 64 * 1024 * 1024
  /** when set, GetOriginal fails after sending this many chunks */
  failAfterChunks: number | undefined

  constructor (private readonly store: ObjectsFake) {}

  service (): PosterImpl {
    return {
      Upload: clientStreamHandler<v1.UploadPart__Output, v1.UploadReceipt>('Upload', (parts) => this.upload(parts), silent),
      GetPoster: async (req, call) => this.poster(req, identityOf(call).caller),
      GetOriginal: serverStreamHandler<v1.GetOriginalRequest__Output, v1.FileChunk>('GetOriginal', (req, _signal, call) => this.original(req, identityOf(call).caller), silent),
      GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('GetThumbnail', (req) => this.thumbnail(req), silent),
      ImportFile: (_call, callback) => callback({ code: 12, details: 'not implemented' }),
      GetStats: async () => ({ renders: 0, render_waits: 0, busy: 0, max_rss_bytes: 0, uploads: this.uploads.length }),
    }
  }

  private tooBig () {
    return new DomainError('UPLOAD_MAX_FILESIZE_EXCEEDED', 'the file is too large', { max_bytes: this.maxBytes })
  }

  private async upload (parts: AsyncIterable<v1.UploadPart__Output>): Promise<v1.UploadReceipt> {
    const seen: UploadSeen = { header: null, chunks: 0, bytes: 0, sha256: createHash('sha256'), ended: false }
    this.uploads.push(seen)
    for await (const part of parts) {
      if (part.header) {
        if (seen.header) throw new DomainError('MALFORMED_UPLOAD', 'two headers')
        seen.header = part.header
        if (part.header.declared_size > this.maxBytes) throw this.tooBig()
        continue
      }
      if (!seen.header) throw new DomainError('MALFORMED_UPLOAD', 'no header first')
      const chunk = part.chunk ?? Buffer.alloc(0)
      seen.chunks++
      seen.bytes += chunk.length
      seen.sha256.update(chunk)
      if (seen.bytes > this.maxBytes) throw this.tooBig()
    }
    seen.ended = true
    const header = seen.header
    if (!header) throw new DomainError('MALFORMED_UPLOAD', 'no header')
    if (seen.bytes === 0) throw new DomainError('UPLOAD_EMPTY', 'the file is empty')
    const mime = header.mime_type.split(';')[0]?.trim().toLowerCase() ?? ''
    const image = mime.startsWith('image/')
    return {
      upload_token: `upload-${this.uploads.length}`,
      expires_at: Date.now() + 1_800_000,
      file: { key: seen.sha256.copy().digest('hex'), name: header.file_name, mime_type: mime, size: seen.bytes, width: image ? 640 : 0, height: image ? 480 : 0 },
    }
  }

  private poster (req: v1.GetPosterRequest__Output, caller: Caller): v1.Poster {
    // absent (undefined) or 1–4096 as written; '' is a value given empty
    for (const [parameter, raw] of [['width', req.width], ['height', req.height]] as const) {
      if (raw !== undefined && (!DIMENSION.test(raw) || Number(raw) > 4096)) {
        throw new DomainError('INVALID_PARAMETER', `${parameter} must be an integer from 1 to 4096`, { parameter })
      }
    }
    const object = this.store.read(req.object_id, caller)
    const width = req.width ?? '130'
    const height = req.height ?? '85'
    const path = `${IMAGE_KEY}/${width}x${height}.jpg`
    return { id: object.id === 3 ? 4 : object.id, thumbnail_path: `thumbnails/${path}?sig=${signThumbnail(path, '')}` }
  }

  private async * original (req: v1.GetOriginalRequest__Output, caller: Caller): AsyncGenerator<v1.FileChunk> {
    const object = this.store.read(req.object_id, caller)
    const file = this.files.get(String(object.id))
    if (!file || file.name !== req.file_name) throw new DomainError('FILE_NOT_FOUND', 'no such file')
    const total = file.bytes.length
    const etag = `"${createHash('sha256').update(file.bytes).digest('hex').slice(0, 16)}"`
    const range = byteRange(req, total, etag)
    const bytes = range ? file.bytes.subarray(range.start, range.end + 1) : file.bytes
    yield {
      header: {
        mime_type: file.mime, size: bytes.length, total_size: total, ...(range ? { range_start: range.start } : {}), etag,
        public: object.free_access === true, immutable: false, expires_at: 0, file_name: file.name, inline: file.inline,
      },
    }
    if (req.head) return
    let sent = 0
    for (const chunk of chunksOf(bytes)) {
      if (this.failAfterChunks !== undefined && sent++ >= this.failAfterChunks) throw new DomainError('FILE_NOT_FOUND', 'the file went away')
      yield chunk
    }
  }

  private async * thumbnail (req: v1.GetThumbnailRequest__Output): AsyncGenerator<v1.FileChunk> {
    const match = THUMB.exec(req.path)
    const notFound = () => new DomainError('THUMBNAIL_NOT_FOUND', 'no such thumbnail')
    if (!match || req.signature !== signThumbnail(req.path, req.expires)) throw notFound()
    const [, key = '', w = '1', h = '1', ext] = match
    if (key === BUSY_KEY) throw new DomainError('THUMBNAIL_BUSY', 'rendering is saturated', { retry_after: 3 })
    const expiresAt = req.expires === '' ? 0 : Number(req.expires) * 1000
    if (req.expires !== '' && !(expiresAt > Date.now())) throw new DomainError('THUMBNAIL_EXPIRED', 'the thumbnail URL has expired')
    const bytes = fakeBytes(Number(w) * Number(h), Number(w))
    yield {
      header: {
        mime_type: ext === 'jpg' ? 'image/jpeg' : 'image/png', size: bytes.length, total_size: bytes.length,
        etag: `"${key.slice(0, 8)}-${w}x${h}"`, public: expiresAt === 0, immutable: true, expires_at: expiresAt, file_name: '', inline: true,
      },
    }
    if (!req.head) yield * chunksOf(bytes)
  }
}
