import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { MAX_CACHED_FILE, ThumbnailCache, createThumbnailCache, thumbnailCacheKey } from '../../src/http/thumbnail-cache.js'

const header = (size: number, extra: Partial<v1.FileHeader__Output> = {}): v1.FileHeader__Output => ({
  mime_type: 'image/png', size, total_size: size, etag: '"e"', public: true, immutable: true, expires_at: 0, file_name: '', inline: true, ...extra,
})
const file = (size: number, extra: Partial<v1.FileHeader__Output> = {}) => ({ header: header(size, extra), body: Buffer.alloc(size, 1) })

function clock (start = 1_000_000) {
  const c = { t: start, now: () => c.t }
  return c
}

describe('ThumbnailCache', () => {
  it('when an answer is kept, then it is served whole until THUMBNAIL_CACHE_TTL passes', () => {
    const c = clock()
    const cache = new ThumbnailCache({ maxBytes: 10_000_000, ttlSeconds: 30, now: c.now })
    expect(cache.set('k', file(100))).toBe(true)
    expect(cache.get('k')?.body.length).toBe(100)
    c.t += 29_999
    expect(cache.get('k')).toBeDefined()
    c.t += 1
    expect(cache.get('k')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('when the URL expires before the TTL, then the entry ends with the URL', () => {
    const c = clock()
    const cache = new ThumbnailCache({ maxBytes: 10_000_000, ttlSeconds: 30, now: c.now })
    cache.set('k', file(100, { public: false, expires_at: c.t + 5_000 }))
    c.t += 4_999
    expect(cache.get('k')).toBeDefined()
    c.t += 1
    expect(cache.get('k')).toBeUndefined()
  })

  it('when the URL has already expired, then nothing is kept', () => {
    const c = clock()
    const cache = new ThumbnailCache({ maxBytes: 10_000_000, ttlSeconds: 30, now: c.now })
    expect(cache.accepts(header(100, { expires_at: c.t }))).toBe(false)
    expect(cache.set('k', file(100, { expires_at: c.t - 1 }))).toBe(false)
    expect(cache.get('k')).toBeUndefined()
  })

  it('when an answer is over 1 MiB, a range, or shorter than its header says, then it is not kept', () => {
    const cache = new ThumbnailCache({ maxBytes: 100_000_000, ttlSeconds: 30 })
    expect(cache.set('exactly', file(MAX_CACHED_FILE))).toBe(true)
    expect(cache.set('big', file(MAX_CACHED_FILE + 1))).toBe(false)
    expect(cache.set('range', file(10, { range_start: 0 }))).toBe(false)
    expect(cache.set('short', { header: header(10), body: Buffer.alloc(9) })).toBe(false)
    expect(cache.accepts(header(MAX_CACHED_FILE + 1))).toBe(false)
    expect(cache.size).toBe(1)
  })

  it('when the byte budget is reached, then the least recently used entries go', () => {
    // each entry counts its bytes plus a little for key and header: three fit, four do not
    const cache = new ThumbnailCache({ maxBytes: 12_000, ttlSeconds: 30 })
    for (const k of ['a', 'b', 'c']) cache.set(k, file(3_000))
    expect(cache.size).toBe(3)
    expect(cache.get('a')).toBeDefined() // a is now the most recent
    cache.set('d', file(3_000))
    expect(cache.get('b')).toBeUndefined()
    expect(['a', 'c', 'd'].every((k) => cache.get(k) !== undefined)).toBe(true)
    expect(cache.bytes).toBeLessThanOrEqual(12_000)
  })

  it('when one answer is larger than the whole budget, then it is not kept and nothing is evicted for it', () => {
    const cache = new ThumbnailCache({ maxBytes: 5_000, ttlSeconds: 30 })
    cache.set('a', file(1_000))
    expect(cache.set('huge', file(6_000))).toBe(false)
    expect(cache.get('a')).toBeDefined()
  })

  it('when either setting is 0, then there is no cache', () => {
    expect(createThumbnailCache({ maxBytes: 0, ttlSeconds: 30 })).toBeUndefined()
    expect(createThumbnailCache({ maxBytes: 1000, ttlSeconds: 0 })).toBeUndefined()
    expect(createThumbnailCache({ maxBytes: 1000, ttlSeconds: 1 })).toBeInstanceOf(ThumbnailCache)
  })
})

describe('thumbnailCacheKey', () => {
  it('when any of path, expires or signature differs, then the key differs, without ambiguity', () => {
    const key = (path: string, expires: string, signature: string) => thumbnailCacheKey({ path, expires, signature })
    expect(key('a/1x1.png', '', 's')).toBe(key('a/1x1.png', '', 's'))
    expect(key('a/1x1.png', '', 's')).not.toBe(key('a/1x1.png', '', 't'))
    expect(key('a/1x1.png', '1', 's')).not.toBe(key('a/1x1.png', '', 's'))
    expect(key('x', '1&sig=2', '3')).not.toBe(key('x', '1', '2&sig=3'))
  })
})
