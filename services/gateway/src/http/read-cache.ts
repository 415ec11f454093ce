import type { v1 } from '@content/protos'
import { LRUCache } from 'lru-cache'
import { countInvalidation, readCacheMetrics, type InvalidationReason } from './read-cache-metrics.js'

export interface CachedRead { body: string, etag: string }

interface Entry extends CachedRead { epoch: number }

/**
 * Whole serialized read answers, valid only for the objects service's current change generation.
 * `epoch` counts local invalidations: an answer computed before one is never stored after it.
 * While the change feed is down nothing is served or stored.
 */
export class ReadCache {
  private readonly lru: LRUCache<string, Entry>
  private current = 0
  private live = false
  private seen: { storeId: string, generation: number } | undefined

  constructor (maxEntries: number) {
    this.lru = new LRUCache<string, Entry>({ max: maxEntries })
  }

  get isLive (): boolean { return this.live }
  get size (): number { return this.lru.size }
  epoch (): number { return this.current }

  get (key: string): CachedRead | undefined {
    if (!this.live) {
      readCacheMetrics.misses.inc()
      return undefined
    }
    const entry = this.lru.get(key)
    const hit = entry && entry.epoch === this.current ? { body: entry.body, etag: entry.etag } : undefined
    if (hit) readCacheMetrics.hits.inc()
    else readCacheMetrics.misses.inc()
    return hit
  }

  set (key: string, value: CachedRead, epoch: number): void {
    if (!this.live || epoch !== this.current) return
    const before = this.lru.size
    this.lru.set(key, { ...value, epoch })
    // a new key adds one; a replaced key, or one that evicted the least recent, adds none
    if (this.lru.size !== before) readCacheMetrics.entries.inc(this.lru.size - before)
  }

  /** A message of the change feed: a new generation or store clears everything. */
  observe (change: { store_id: string, generation: number }): void {
    const seen = this.seen
    if (!seen || seen.storeId !== change.store_id || seen.generation !== change.generation) {
      // the first message after (re)subscribing clears a cache that was down, hence already empty
      this.invalidate(seen ? 'change' : undefined)
      this.seen = { storeId: change.store_id, generation: change.generation }
    }
    this.live = true
  }

  /**
   * Local invalidation (e.g. after a write through this gateway): read-your-writes without waiting for the
   * feed. `reason` is what the invalidation counter records; none for one that clears nothing new.
   */
  invalidate (reason: InvalidationReason | undefined = 'write'): void {
    this.current += 1
    if (reason) countInvalidation(reason)
    readCacheMetrics.entries.dec(this.lru.size)
    this.lru.clear()
  }

  /** The feed is down: bypass and forget until it is back. */
  down (): void {
    // retries while the feed stays down find the cache already bypassed and empty
    const wasLive = this.live
    this.live = false
    this.seen = undefined
    this.invalidate(wasLive ? 'reset' : undefined)
  }
}

/** Key: origin + path + sorted query without access_token + the caller's sorted groups (user id does not matter). */
export function readCacheKey (url: string, query: URLSearchParams, groups: readonly string[]): string {
  const params = [...query].filter(([k]) => k !== 'access_token').map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).sort()
  return `${url}?${params.join('&')}#${[...groups].sort().map(encodeURIComponent).join(',')}`
}

/** The log calls the watcher makes; fastify's and pino's loggers both fit. */
export interface WarnLogger { warn(obj: object, msg: string): void, debug?(obj: object, msg: string): void }

export interface WatchOptions { minBackoffMs?: number, maxBackoffMs?: number }

/**
 * Subscribes to ObjectService.WatchChanges and feeds the cache; on error or end the cache is
 * bypassed and the subscription retried with exponential backoff.
 */
export function watchChanges (raw: v1.ObjectServiceClient, cache: ReadCache, log: WarnLogger, options: WatchOptions = {}): { stop(): void } {
  const min = options.minBackoffMs ?? 100
  const max = options.maxBackoffMs ?? 5_000
  let backoff = min
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let call: ReturnType<v1.ObjectServiceClient['WatchChanges']> | undefined

  const retry = (why: string) => {
    if (stopped) return
    // warn on the transition only; retries while the objects service stays away are debug noise
    if (cache.isLive) log.warn({ why }, 'change feed down; read cache bypassed')
    else log.debug?.({ why, retryInMs: backoff }, 'change feed still down')
    cache.down()
    call?.removeAllListeners()
    call?.on('error', () => {})
    call = undefined
    timer = setTimeout(subscribe, backoff)
    timer.unref()
    backoff = Math.min(max, backoff * 2)
  }

  function subscribe () {
    if (stopped) return
    const c = raw.WatchChanges({})
    call = c
    c.on('data', (change: v1.Change__Output) => {
      backoff = min
      cache.observe({ store_id: change.store_id, generation: Number(change.generation) })
    })
    c.on('error', (err: Error) => retry(err.message))
    c.on('end', () => retry('stream ended'))
  }

  subscribe()
  return {
    stop () {
      stopped = true
      if (timer) clearTimeout(timer)
      call?.removeAllListeners()
      call?.on('error', () => {})
      call?.cancel()
      cache.down()
    },
  }
}
