import { DomainError } from '@content/platform'
import { verifyPath } from '../core/signatures.js'
import { parseThumbnailPath, storeName, type ThumbnailTarget } from '../core/thumbnail-spec.js'
import type { Size } from '../core/types.js'
import type { ImageInput } from '../imaging/sharp.js'
import { inChunks, type FileAnswer, type ServiceDeps } from './deps.js'

export interface ThumbnailRequest {
  path: string
  expires: string
  signature: string
  head: boolean
}

/** What a thumbnail request is answered with; `fallback` = the placeholder standing in for a broken original. */
interface Rendered {
  bytes: Buffer
  fallback: boolean
}

const notFound = (why: string) => new DomainError('THUMBNAIL_NOT_FOUND', `thumbnail not found: ${why}`)

/**
 * GET /thumbnails/… (decisions §8): only signed paths are served. A thumbnail is rendered once (requests
 * for one under way wait for it), kept in the thumbnail store, and served from there afterwards.
 */
export class Thumbnails {
  constructor (private readonly d: ServiceDeps) {}

  async get (req: ThumbnailRequest): Promise<FileAnswer> {
    const target = parseThumbnailPath(req.path)
    if (target === null) throw notFound('not a thumbnail address')
    const verdict = verifyPath(this.d.settings.signingKey, req.path, req.expires, req.signature, this.d.now())
    if (verdict === 'invalid') throw notFound('the signature does not match')
    if (verdict === 'expired') throw new DomainError('THUMBNAIL_EXPIRED', 'this thumbnail address has expired; ask for the poster again')
    const { bytes, fallback } = await this.bytesOf(target)
    const isPublic = req.expires === ''
    const shown: ThumbnailTarget = fallback ? { kind: 'placeholder', size: target.size } : target
    const ext = shown.kind === 'image' ? shown.ext : 'png'
    return {
      header: {
        mime_type: ext === 'jpg' ? 'image/jpeg' : 'image/png',
        size: bytes.length,
        total_size: bytes.length,
        etag: `"${storeName(shown)}"`,
        public: isPublic,
        immutable: isPublic && !fallback,
        expires_at: isPublic || fallback ? 0 : Number(req.expires) * 1000,
        file_name: `${target.size.width}x${target.size.height}.${ext}`,
        inline: true,
      },
      body: req.head ? null : inChunks(bytes),
    }
  }

  private async bytesOf (target: ThumbnailTarget): Promise<Rendered> {
    const name = storeName(target)
    const hit = await this.d.store.thumbnails.get(name).catch((err: unknown) => {
      this.d.log.warn({ err, name }, 'thumbnail store read failed; rendering again')
      return null
    })
    if (hit !== null) return { bytes: hit, fallback: false }
    if (target.kind === 'image' && (await this.d.store.originals.stat(target.key)) === null) throw notFound('the original is gone')
    return this.d.gate.run(name, () => target.kind === 'image' ? this.render(target, name) : this.placeholder(target.size, name))
  }

  private async placeholder (size: Size, name: string): Promise<Rendered> {
    const started = performance.now()
    const bytes = await this.d.imaging.renderPlaceholder(size)
    this.d.stats.rendered('placeholder', started)
    await this.keep(name, 'placeholder', bytes)
    return { bytes, fallback: false }
  }

  /** An original that no longer renders answers the placeholder at that size, not kept and not immutable. */
  private async render (target: Extract<ThumbnailTarget, { kind: 'image' }>, name: string): Promise<Rendered> {
    const started = performance.now()
    const input = await this.inputOf(target.key)
    let bytes: Buffer
    try {
      bytes = await this.d.imaging.renderThumbnail(input, { ...target.size, format: target.ext === 'jpg' ? 'jpeg' : 'png' })
    } catch (err) {
      this.d.log.warn({ err, key: target.key }, 'an original failed to render; answering the placeholder')
      const placeholder = await this.d.imaging.renderPlaceholder(target.size)
      this.d.stats.rendered('failed', started)
      return { bytes: placeholder, fallback: true }
    }
    this.d.stats.rendered('ok', started)
    await this.keep(name, target.key, bytes)
    // the collector may have removed the original meanwhile: what was just kept for it goes too
    if ((await this.d.store.originals.stat(target.key)) === null) await this.d.store.thumbnails.removeFor(target.key)
    return { bytes, fallback: false }
  }

  private async inputOf (key: string): Promise<ImageInput> {
    const originals = this.d.store.originals
    const path = originals.path ? await originals.path(key) : null
    if (path !== null) return path
    const stream = await originals.open(key)
    if (stream === null) throw notFound('the original is gone')
    const parts: Buffer[] = []
    for await (const part of stream) parts.push(part as Buffer)
    return Buffer.concat(parts)
  }

  private async keep (name: string, originalKey: string, bytes: Buffer): Promise<void> {
    await this.d.store.thumbnails.put(name, originalKey, bytes).catch((err: unknown) => {
      this.d.log.warn({ err, name }, 'thumbnail store write failed; serving the render anyway')
    })
  }
}
