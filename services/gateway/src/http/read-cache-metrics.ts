import { counter, gauge } from '@content/platform'

/** Why the read cache was emptied. */
export type InvalidationReason =
  /** the change feed reported a new generation (or store): a write anywhere */
  | 'change'
  /** a write through this gateway, before the feed reports it */
  | 'write'
  /** the change feed went down: the cache is bypassed until it is back */
  | 'reset'

export const readCacheMetrics = {
  hits: counter({ name: 'content_read_cache_hits_total', help: 'Cacheable reads answered from the gateway read cache.' }),
  misses: counter({
    name: 'content_read_cache_misses_total',
    help: 'Cacheable reads the gateway read cache could not answer (absent, or bypassed while the change feed is down).',
  }),
  invalidations: counter({
    name: 'content_read_cache_invalidations_total',
    help: 'Times the gateway read cache was emptied, by reason: change (feed), write (local), reset (feed down).',
    labelNames: ['reason'] as const,
  }),
  entries: gauge({ name: 'content_read_cache_entries', help: 'Answers held in the gateway read cache.' }),
}

const REASONS: readonly InvalidationReason[] = ['change', 'write', 'reset']
// every reason's series exists from the start, so a rate over it is never empty
for (const reason of REASONS) readCacheMetrics.invalidations.inc({ reason }, 0)
const invalidationChildren = Object.fromEntries(REASONS.map((r) => [r, readCacheMetrics.invalidations.labels(r)])) as
  Record<InvalidationReason, { inc(): void }>

export const countInvalidation = (reason: InvalidationReason): void => invalidationChildren[reason].inc()
