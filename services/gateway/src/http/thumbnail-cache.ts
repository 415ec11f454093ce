import type { v1 } from '@content/protos'
import { LRUCache } from 'lru-cache'

/** A whole thumbnail answer: the poster service's header and every byte. */
export interface CachedFile { header: v1.FileHeader__Output, body: Buffer }

interface Entry extends CachedFile {
  /** ms since the epoch after which the entry is not served */
  until: number
}

/** Answers up to this size are kept whole; bigger ones stream through uncached. */
export const MAX_CACHED_FILE = 1024 * 1024
// key, header and bookkeeping, roughly: many tiny entries must not overrun the byte budget
const ENTRY_OVERHEAD = 512

export interface ThumbnailCacheOptions {
  /** THUMBNAIL_CACHE_BYTES */
  maxBytes: number
  /** THUMBNAIL_CACHE_TTL */
  ttlSeconds: number
  now?: () => number
}

/**
 * Thumbnails served again without asking the poster service. Their URLs are content-addressed and
 * signed, so an answer only goes stale when the URL expires or the original is removed; the short TTL
 * bounds the latter, the URL's own expiry the former.
 */
export class ThumbnailCache {
  private readonly lru: LRUCache<string, Entry>
  private readonly now: () => number

  constructor (private readonly options: ThumbnailCacheOptions) {
    this.now = options.now ?? Date.now
    this.lru = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => entry.body.length + key.length + ENTRY_OVERHEAD,
    })
  }

  get size (): number { return this.lru.size }
  get bytes (): number { return this.lru.calculatedSize }

  get (key: string): CachedFile | undefined {
    const entry = this.lru.get(key)
    if (!entry) return undefined
    if (entry.until > this.now()) return entry
    this.lru.delete(key)
    return undefined
  }

  /** Whether an answer with this header may be kept: a whole 200 of at most 1 MiB whose URL has not expired. */
  accepts (header: v1.FileHeader__Output): boolean {
    return typeof header.range_start !== 'number' && header.size <= MAX_CACHED_FILE && this.until(header) > this.now()
  }

  /** Keeps a complete answer that `accepts` allows; false when it was not kept. */
  set (key: string, file: CachedFile): boolean {
    const { header, body } = file
    if (!this.accepts(header) || body.length !== header.size) return false
    this.lru.set(key, { header, body, until: this.until(header) })
    return this.lru.has(key)
  }

  /** THUMBNAIL_CACHE_TTL at most, and never past the URL's own expiry. */
  private until (header: v1.FileHeader__Output): number {
    const ttl = this.now() + this.options.ttlSeconds * 1000
    return header.expires_at > 0 ? Math.min(ttl, header.expires_at) : ttl
  }
}

/** Off when either setting is 0. */
export function createThumbnailCache (options: ThumbnailCacheOptions): ThumbnailCache | undefined {
  return options.maxBytes > 0 && options.ttlSeconds > 0 ? new ThumbnailCache(options) : undefined
}

/** Exactly what the poster service is asked: the same request always gets the same answer. */
export function thumbnailCacheKey (request: { path: string, expires: string, signature: string }): string {
  return JSON.stringify([request.path, request.expires, request.signature])
}
