import { LRUCache } from 'lru-cache'
import { countBypass } from './change-feed-metrics.js'
import { countInvalidation, readCacheMetrics, type InvalidationReason } from './read-cache-metrics.js'

/** An answer's body as the bytes sent (encoded once, when stored) and its validator. */
export interface CachedRead { body: Buffer, etag: string }

interface Entry extends CachedRead {
  /** the objects the answer depends on (objects.proto `x-depends-on`) */
  deps: readonly number[]
}

/** A change-feed message as far as the cache is concerned (objects.proto `Change`). */
export interface FeedChange {
  store_id: string
  reset: boolean
  clock: boolean
  seq: number
  events: readonly { affects: readonly number[] }[]
}

/** Ids whose last invalidation is remembered; past this the memory is dropped and older reads refused. */
const TOUCHED_KEPT = 100_000

/**
 * How long a cacheable read waits for the feed to tell this gateway's latest write before it goes to
 * the backend instead. The event is durable before the write answers, so it follows soon after; sending
 * every read to the backend meanwhile (reads beside writes, bench (f)) gave the objects service, which
 * is to send the event, reads that the cache would have answered (loadtest/README.md).
 */
export const BEHIND_WRITE_WAIT_MS = 50

/**
 * Whole serialized read answers, each kept until a change event affects an object it depends on.
 * Serves only while the change feed is live and has reached every write acknowledged through this
 * gateway. `tick` counts invalidations: an answer computed before one that touched its objects is
 * never stored after it, so a read racing a write cannot put the old state back.
 */
export class ReadCache {
  private readonly lru: LRUCache<string, Entry>
  private readonly dependents = new Map<number, Set<string>>()
  private readonly touched = new Map<number, number>()
  private tick = 0
  /** reads begun before this tick are not stored (whole clears, forgotten touches) */
  private floor = 0
  private live = false
  private storeId = ''
  private seq = 0
  /** the feed position the latest local write waits for */
  private awaited = 0
  /** reads waiting for the feed to reach `awaited` */
  private readonly waiting = new Set<() => void>()

  constructor (maxEntries: number) {
    this.lru = new LRUCache<string, Entry>({ max: maxEntries, dispose: (entry, key) => this.unindex(key, entry.deps) })
  }

  get isLive (): boolean { return this.live }
  get size (): number { return this.lru.size }
  /** Where the feed stands: a new subscription resumes from here. */
  get position (): { storeId: string, seq: number } { return { storeId: this.storeId, seq: this.seq } }

  /** Taken before a read is computed; `set` needs it. */
  begin (): number { return this.tick }

  private get serving (): boolean { return this.live && this.seq >= this.awaited }

  /**
   * Null when the cache is not behind a write acknowledged here; else what resolves once the feed has
   * told that write, once the feed is down, or after `ms`: a read waits for it rather than bypassing the
   * cache.
   */
  caughtUp (ms = BEHIND_WRITE_WAIT_MS): Promise<void> | null {
    if (!this.live || this.seq >= this.awaited) return null
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.waiting.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.waiting.add(done)
    })
  }

  private release (): void {
    for (const done of [...this.waiting]) done()
  }

  get (key: string): CachedRead | undefined {
    if (!this.serving) countBypass(this.live ? 'behind_write' : 'feed_down')
    const entry = this.hit(key)
    if (!entry) readCacheMetrics.misses.inc()
    return entry && { body: entry.body, etag: entry.etag }
  }

  /**
   * The entry under `key` when it may be served, counted as a hit; nothing counted otherwise, for a caller
   * that then takes the path through `get`.
   */
  hit (key: string): CachedRead | undefined {
    const entry = this.serving ? this.lru.get(key) : undefined
    if (entry) readCacheMetrics.hits.inc()
    return entry
  }

  set (key: string, value: CachedRead, deps: readonly number[], begun: number): void {
    if (!this.serving || begun < this.floor) return
    for (const id of deps) {
      if ((this.touched.get(id) ?? 0) > begun) return
    }
    this.lru.set(key, { ...value, deps })
    for (const id of deps) {
      let keys = this.dependents.get(id)
      if (!keys) { keys = new Set(); this.dependents.set(id, keys) }
      keys.add(key)
    }
    readCacheMetrics.entries.set(this.lru.size)
  }

  /** A message of the change feed: drops what its events affect; a reset, a new store or the clock drop everything. */
  observe (change: FeedChange): void {
    if (change.reset || change.store_id !== this.storeId) {
      this.clear(this.live || this.storeId !== '' ? 'reset' : undefined)
      this.storeId = change.store_id
      this.awaited = 0 // numbers of another store (or a restarted sequence) say nothing here
    } else if (change.clock) {
      this.clear('clock')
    }
    for (const event of change.events) this.drop(event.affects)
    this.seq = change.seq
    this.live = true
    if (this.seq >= this.awaited) this.release()
  }

  /** A write through this gateway was acknowledged at `seq`: nothing is served until the feed has told it. */
  written (seq: number): void {
    this.awaited = Math.max(this.awaited, seq)
  }

  /** A write whose outcome is unknown (it failed in transit): everything goes. */
  invalidate (reason: InvalidationReason = 'write'): void {
    this.clear(reason)
  }

  /** The feed is down: nothing is served or stored until it is back; entries wait for the events missed. */
  down (): void {
    this.live = false
    this.release()
  }

  private drop (ids: readonly number[]): void {
    this.tick += 1
    let dropped = false
    for (const id of ids) {
      this.touched.set(id, this.tick)
      const keys = this.dependents.get(id)
      if (!keys) continue
      for (const key of [...keys]) dropped = this.lru.delete(key) || dropped
    }
    if (this.touched.size > TOUCHED_KEPT) {
      this.touched.clear()
      this.floor = this.tick
    }
    if (dropped) {
      countInvalidation('change')
      readCacheMetrics.entries.set(this.lru.size)
    }
  }

  private clear (reason: InvalidationReason | undefined): void {
    this.tick += 1
    this.floor = this.tick
    this.touched.clear()
    if (reason) countInvalidation(reason)
    this.lru.clear()
    readCacheMetrics.entries.set(0)
  }

  private unindex (key: string, deps: readonly number[]): void {
    for (const id of deps) {
      const keys = this.dependents.get(id)
      if (!keys) continue
      keys.delete(key)
      if (keys.size === 0) this.dependents.delete(id)
    }
  }
}

/** Key: origin + path + sorted query without access_token + the caller's sorted groups (user id does not matter). */
export function readCacheKey (url: string, query: URLSearchParams, groups: readonly string[]): string {
  const params = [...query].filter(([k]) => k !== 'access_token').map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).sort()
  return `${url}?${params.join('&')}#${[...groups].sort().map(encodeURIComponent).join(',')}`
}
