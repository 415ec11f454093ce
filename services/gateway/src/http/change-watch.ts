import type { v1 } from '@content/protos'
import { changeFeedMetrics, countResume, countStreamReset, type StreamResetCause } from './change-feed-metrics.js'
import type { FeedChange } from './read-cache.js'

/** What follows the feed and keeps its position: the read cache, or a bare position when the cache is off. */
export interface FeedFollower {
  readonly isLive: boolean
  readonly position: { storeId: string, seq: number }
  observe (change: FeedChange): void
  down (): void
}

/** The feed's position alone, for a gateway whose read cache is off (its live streams still follow the feed). */
export class FeedPosition implements FeedFollower {
  private live = false
  private storeId = ''
  private seq = 0
  get isLive (): boolean { return this.live }
  get position (): { storeId: string, seq: number } { return { storeId: this.storeId, seq: this.seq } }
  observe (change: FeedChange): void {
    this.storeId = change.store_id
    this.seq = change.seq
    this.live = true
  }

  down (): void { this.live = false }
}

/** The log calls the watcher makes; fastify's and pino's loggers both fit. */
export interface WarnLogger { warn(obj: object, msg: string): void, info?(obj: object, msg: string): void, debug?(obj: object, msg: string): void }

export interface WatchOptions {
  minBackoffMs?: number
  maxBackoffMs?: number
  /** the heartbeat asked of the objects service (0: none, and no silence limit) */
  heartbeatMs?: number
  /** a stream without any message for this long is given up (default three heartbeats) */
  silenceMs?: number
  /**
   * After a stream that was live ends, how long the cache keeps serving while a new one replays what
   * was missed. The new stream is opened at once; its first message (the replay) ends the grace. If it
   * fails first, or the grace runs out, the cache is bypassed until the feed is back.
   */
  resumeGraceMs?: number
  /** told every message after the follower: the live streams (decisions §17) */
  tell?: (change: v1.Change__Output) => void
}

/** A stream open this long before it ended is resumed at once; a shorter one waits the backoff (no tight loop). */
const STEADY_MS = 1_000

/**
 * Subscribes to ObjectService.WatchChanges from the cache's position and feeds the cache. When a live
 * stream ends, a new one resumes from the last position seen at once and the cache keeps serving: the
 * replay of the missed events reaches the cache before anything newer does, so nothing it drops is
 * served for longer than the resume takes (bounded by the grace). Only when the resume fails, is too
 * slow, or cannot replay (`reset`: the cache is emptied) are reads bypassed; later attempts back off
 * exponentially.
 */
export function watchChanges (raw: v1.ObjectServiceClient, cache: FeedFollower, log: WarnLogger, options: WatchOptions = {}): { stop(): void } {
  const min = options.minBackoffMs ?? 100
  const max = options.maxBackoffMs ?? 5_000
  const heartbeatMs = options.heartbeatMs ?? 5_000
  const silenceMs = options.silenceMs ?? heartbeatMs * 3
  const graceMs = options.resumeGraceMs ?? 1_000
  let backoff = min
  let stopped = false
  let retryTimer: NodeJS.Timeout | undefined
  let silenceTimer: NodeJS.Timeout | undefined
  let graceTimer: NodeJS.Timeout | undefined
  let call: ReturnType<v1.ObjectServiceClient['WatchChanges']> | undefined
  /** when the current stream delivered its first message (undefined: not yet) */
  let establishedAt: number | undefined
  /** a stream has been live before: the next first message is a resumption */
  let resuming = false

  const bypass = (why: string) => {
    if (graceTimer) clearTimeout(graceTimer)
    graceTimer = undefined
    // warn on the transition only; retries while the objects service stays away are debug noise
    if (cache.isLive) log.warn({ why }, 'change feed down; read cache bypassed')
    cache.down()
    changeFeedMetrics.live.set(0)
  }

  const release = () => {
    if (silenceTimer) clearTimeout(silenceTimer)
    silenceTimer = undefined
    call?.removeAllListeners()
    call?.on('error', () => {})
    call = undefined
  }

  const dropped = (cause: StreamResetCause, why: string) => {
    if (stopped) return
    countStreamReset(cause)
    const lived = establishedAt === undefined ? -1 : Date.now() - establishedAt
    const ended = call
    release()
    if (cause === 'silent') ended?.cancel()
    establishedAt = undefined
    if (lived >= 0 && cache.isLive && !graceTimer) {
      // a live stream ended: resume now and keep serving while the missed events are replayed
      log.info?.({ why, cause }, 'change feed stream ended; resuming from the last position')
      graceTimer = setTimeout(() => bypass(`no resume within ${graceMs} ms after: ${why}`), graceMs)
      graceTimer.unref()
      schedule(lived >= STEADY_MS ? 0 : backoff)
    } else {
      if (cache.isLive || graceTimer) bypass(why)
      else log.debug?.({ why, retryInMs: backoff }, 'change feed still down')
      schedule(backoff)
    }
  }

  function schedule (delay: number) {
    if (delay > 0) backoff = Math.min(max, backoff * 2)
    retryTimer = setTimeout(subscribe, delay)
    retryTimer.unref()
  }

  const armSilence = () => {
    if (heartbeatMs <= 0) return
    if (silenceTimer) clearTimeout(silenceTimer)
    silenceTimer = setTimeout(() => dropped('silent', `no message for ${silenceMs} ms`), silenceMs)
    silenceTimer.unref()
  }

  function subscribe () {
    if (stopped) return
    const { storeId, seq } = cache.position
    const c = raw.WatchChanges({ store_id: storeId, after_seq: seq, heartbeat_ms: heartbeatMs })
    call = c
    armSilence()
    c.on('data', (change: v1.Change__Output) => {
      armSilence()
      if (establishedAt === undefined) {
        establishedAt = Date.now()
        backoff = min
        if (resuming) {
          const outcome = change.reset ? 'started_over' : graceTimer ? 'replayed' : 'after_bypass'
          countResume(outcome)
          if (outcome !== 'replayed') log.info?.({ outcome }, 'change feed resumed')
        }
        resuming = true
        if (graceTimer) clearTimeout(graceTimer)
        graceTimer = undefined
      }
      cache.observe({
        store_id: change.store_id, reset: change.reset, clock: change.clock, seq: Number(change.seq),
        events: change.events.map((e) => ({ affects: e.affects.map(Number) })),
      })
      options.tell?.(change)
      changeFeedMetrics.live.set(1)
    })
    c.on('error', (err: Error) => { if (call === c) dropped('error', err.message) })
    c.on('end', () => { if (call === c) dropped('ended', 'stream ended') })
  }

  changeFeedMetrics.live.set(0)
  subscribe()
  return {
    stop () {
      stopped = true
      for (const timer of [retryTimer, graceTimer]) if (timer) clearTimeout(timer)
      const open = call
      release()
      open?.cancel()
      cache.down()
      changeFeedMetrics.live.set(0)
    },
  }
}
