import type { Logger } from '@content/platform'
import type { PosterConfig } from '../config.js'
import type { RenderGate } from '../core/render-gate.js'
import type { Imaging } from '../imaging/sharp.js'
import type { MediaStore } from '../store/media.store.js'
import type { ObjectsPort } from './objects.port.js'
import type { Stats } from './stats.js'

/** The settings the request paths use (decisions §12 and the brief's poster list). */
export interface MediaSettings {
  signingKey: string
  uploadMaxBytes: number
  uploadMaxPixels: number
  uploadConcurrency: number
  /** seconds a protected image's thumbnail URL stays valid */
  thumbnailUrlTtl: number
  renderConcurrency: number
  renderQueue: number
  renderTimeoutMs: number
}

export function mediaSettings (config: PosterConfig): MediaSettings {
  return {
    signingKey: config.MEDIA_SIGNING_KEY,
    uploadMaxBytes: config.UPLOAD_MAX_BYTES,
    uploadMaxPixels: config.UPLOAD_MAX_PIXELS,
    uploadConcurrency: config.UPLOAD_CONCURRENCY,
    thumbnailUrlTtl: config.THUMBNAIL_URL_TTL,
    renderConcurrency: config.RENDER_CONCURRENCY,
    renderQueue: config.RENDER_QUEUE,
    renderTimeoutMs: config.RENDER_TIMEOUT_MS,
  }
}

/** What every request path stands on: made once per process, with its state, by the composition root. */
export interface ServiceDeps {
  log: Logger
  settings: MediaSettings
  store: MediaStore
  objects: ObjectsPort
  imaging: Imaging
  gate: RenderGate
  stats: Stats
  /** uploads and imports being staged and checked now (at most `settings.uploadConcurrency`) */
  uploading: { active: number }
  now: () => number
}

/** A file answer: the header, then the bytes (null for HEAD). */
export interface FileAnswer {
  header: {
    mime_type: string
    size: number
    total_size: number
    range_start?: number
    etag: string
    public: boolean
    immutable: boolean
    expires_at: number
    file_name: string
    inline: boolean
  }
  body: AsyncIterable<Buffer> | null
}

export const CHUNK_BYTES = 64 * 1024

/** Bytes in pieces of at most 64 KiB (a stream message each). */
export async function * inChunks (source: AsyncIterable<Buffer | Uint8Array> | Buffer): AsyncGenerator<Buffer> {
  const parts = Buffer.isBuffer(source) ? [source] : source
  for await (const part of parts) {
    const buf = Buffer.isBuffer(part) ? part : Buffer.from(part)
    for (let at = 0; at < buf.length; at += CHUNK_BYTES) yield buf.subarray(at, at + CHUNK_BYTES)
  }
}
