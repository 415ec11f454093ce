import { DomainError } from '@content/platform'
import { verifyPath } from '../core/signatures.js'
import { parseThumbnailPath, storeName, type ThumbnailTarget } from '../core/thumbnail-spec.js'
import type { Size } from '../core/types.js'
import type { ImageInput } from '../imaging/sharp.js'
import { inChunks, type FileAnswer, type ServiceDeps } from './deps.js'
import { countRender } from './stats.js'

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
export async function getThumbnail (deps: ServiceDeps, req: ThumbnailRequest): Promise<FileAnswer> {
  const target = parseThumbnailPath(req.path)
  if (target === null) throw notFound('not a thumbnail address')
  const verdict = verifyPath(deps.settings.signingKey, req.path, req.expires, req.signature, deps.now())
  if (verdict === 'invalid') throw notFound('the signature does not match')
  if (verdict === 'expired') throw new DomainError('THUMBNAIL_EXPIRED', 'this thumbnail address has expired; ask for the poster again')
  const { bytes, fallback } = await bytesOf(deps, target)
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

async function bytesOf (deps: ServiceDeps, target: ThumbnailTarget): Promise<Rendered> {
  const name = storeName(target)
  const hit = await deps.store.thumbnails.get(name).catch((err: unknown) => {
    deps.log.warn({ err, name }, 'thumbnail store read failed; rendering again')
    return null
  })
  if (hit !== null) return { bytes: hit, fallback: false }
  if (target.kind === 'image' && (await deps.store.originals.stat(target.key)) === null) throw notFound('the original is gone')
  return deps.gate.run(name, async () => {
    // a request that missed the read above while another rendered and kept it comes here after that
    // render's flight ended: what was kept answers it, rendered once
    const kept = await deps.store.thumbnails.get(name).catch(() => null)
    if (kept !== null) return { bytes: kept, fallback: false }
    return target.kind === 'image' ? renderImage(deps, target, name) : renderPlaceholder(deps, target.size, name)
  })
}

async function renderPlaceholder (deps: ServiceDeps, size: Size, name: string): Promise<Rendered> {
  const started = performance.now()
  const bytes = await deps.imaging.renderPlaceholder(size)
  countRender(deps.stats, 'placeholder', started)
  await keep(deps, name, 'placeholder', bytes)
  return { bytes, fallback: false }
}

/** An original that no longer renders answers the placeholder at that size, not kept and not immutable. */
async function renderImage (deps: ServiceDeps, target: Extract<ThumbnailTarget, { kind: 'image' }>, name: string): Promise<Rendered> {
  const started = performance.now()
  const input = await inputOf(deps, target.key)
  let bytes: Buffer
  try {
    bytes = await deps.imaging.renderThumbnail(input, { ...target.size, format: target.ext === 'jpg' ? 'jpeg' : 'png' })
  } catch (err) {
    deps.log.warn({ err, key: target.key }, 'an original failed to render; answering the placeholder')
    const placeholder = await deps.imaging.renderPlaceholder(target.size)
    countRender(deps.stats, 'failed', started)
    return { bytes: placeholder, fallback: true }
  }
  countRender(deps.stats, 'ok', started)
  await keep(deps, name, target.key, bytes)
  // the collector may have removed the original meanwhile: what was just kept for it goes too
  if ((await deps.store.originals.stat(target.key)) === null) await deps.store.thumbnails.removeFor(target.key)
  return { bytes, fallback: false }
}

async function inputOf (deps: ServiceDeps, key: string): Promise<ImageInput> {
  const originals = deps.store.originals
  const path = originals.path ? await originals.path(key) : null
  if (path !== null) return path
  const stream = await originals.open(key)
  if (stream === null) throw notFound('the original is gone')
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

async function keep (deps: ServiceDeps, name: string, originalKey: string, bytes: Buffer): Promise<void> {
  await deps.store.thumbnails.put(name, originalKey, bytes).catch((err: unknown) => {
    deps.log.warn({ err, name }, 'thumbnail store write failed; serving the render anyway')
  })
}
