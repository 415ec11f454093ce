import type { v1 } from '@content/protos'
import type { ReadCache } from './read-cache.js'

/** The log calls the watcher makes; fastify's and pino's loggers both fit. */
export interface WarnLogger { warn(obj: object, msg: string): void, debug?(obj: object, msg: string): void }

export interface WatchOptions { minBackoffMs?: number, maxBackoffMs?: number }

/**
 * Subscribes to ObjectService.WatchChanges from the cache's position and feeds the cache; on error or
 * end the cache is bypassed and the subscription resumed with exponential backoff. Resuming replays
 * the events missed meanwhile, so entries they do not affect survive the outage.
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
    const { storeId, seq } = cache.position
    const c = raw.WatchChanges({ store_id: storeId, after_seq: seq })
    call = c
    c.on('data', (change: v1.Change__Output) => {
      backoff = min
      cache.observe({
        store_id: change.store_id, reset: change.reset, clock: change.clock, seq: Number(change.seq),
        events: change.events.map((e) => ({ affects: e.affects.map(Number) })),
      })
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
