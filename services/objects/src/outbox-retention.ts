import type { Logger } from '@content/platform'
import type { ObjectsStore } from './store/objects.store.js'

export interface RetentionOptions {
  /** how long committed events stay in the outbox (CHANGE_RETENTION_HOURS) */
  retentionMs: number
  /** how often old events are dropped */
  everyMs: number
  now: () => number
}

/**
 * Drops outbox events older than the retention, except those a webhook subscription has yet to pass
 * (its deliveries are made from them). A feed consumer further behind starts over (the feed answers
 * `reset`). Returns a stop function.
 */
export function startOutboxRetention (store: ObjectsStore, options: RetentionOptions, log: Logger): () => void {
  const prune = () => {
    store.webhooks.lowestPosition().then((lowest) => store.changes.prune(options.now() - options.retentionMs, lowest ?? Number.MAX_SAFE_INTEGER)).then(
      (dropped) => { if (dropped > 0) log.info({ dropped }, 'old change events dropped') },
      (err: unknown) => log.error({ err }, 'dropping old change events failed'),
    )
  }
  prune()
  const timer = setInterval(prune, options.everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
