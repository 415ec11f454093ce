import type { Logger } from '@content/platform'
import { Redis } from 'ioredis'

/**
 * One ioredis client per process, tuned for the request path: a command fails fast (no offline
 * queue, one retry, 500 ms timeout) instead of stalling a login; reconnects continue underneath.
 */
export function createRedisClient (url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  })
  let healthy = false
  redis.on('ready', () => { healthy = true; log.info('redis ready') })
  // Without a listener ioredis reports every failed reconnect as an unhandled error; log once per outage.
  redis.on('error', (err: Error) => {
    if (healthy) log.warn({ error: err.message }, 'redis unavailable')
    healthy = false
  })
  return redis
}

/** Resolves when the client is ready, or false after `timeoutMs` (the caller decides whether to go on). */
export function redisReady (redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => { redis.off('ready', onReady); resolve(false) }, timeoutMs)
    const onReady = () => { clearTimeout(timer); resolve(true) }
    redis.once('ready', onReady)
  })
}
