import type { Logger } from '@content/platform'
import type { ObjectsStore } from './core/ports.js'

export interface RetentionOptions {
  /** how long committed events stay in the outbox (CHANGE_RETENTION_HOURS) */
  retentionMs: number
  /** how often old events are dropped */
  everyMs: number
  now: () => number
}

/**
 * Drops outbox events older than the retention, except those a webhook subscription has yet to pass
 * (its deliveries are made from them), and the history of finished deliveries as old. A feed consumer
 * further behind starts over (the feed answers `reset`). Also drops idempotency keys past their 24 h.
 * Returns a stop function.
 */
export function startOutboxRetention (store: ObjectsStore, options: RetentionOptions, log: Logger): () => void {
  const prune = async () => {
    const before = options.now() - options.retentionMs
    const lowest = await store.webhooks.lowestPosition()
    const events = await store.changes.prune(before, lowest ?? Number.MAX_SAFE_INTEGER)
    const deliveries = await store.webhooks.pruneDeliveries(before)
    // keys are answered for 24 h whatever the retention of events
    const idempotencyKeys = await store.idempotency.prune(options.now())
    if (events + deliveries + idempotencyKeys > 0) log.info({ events, deliveries, idempotencyKeys }, 'old change events, finished webhook deliveries and idempotency keys dropped')
  }
  const run = () => { prune().catch((err: unknown) => log.error({ err }, 'dropping old change events failed')) }
  run()
  const timer = setInterval(run, options.everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
