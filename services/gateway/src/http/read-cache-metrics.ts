import { counter, gauge } from '@content/platform'

/** Why the read cache was emptied. */
export type InvalidationReason =
  /** a change event affected cached answers (only those are dropped) */
  | 'change'
  /** a write through this gateway failed in transit (it may have been applied): everything is dropped */
  | 'write'
  /** the feed started over (a new store, or the position was no longer retained): everything is dropped */
  | 'reset'
  /** a publication-window boundary passed: everything is dropped */
  | 'clock'

export const readCacheMetrics = {
  hits: counter({ name: 'content_read_cache_hits_total', help: 'Cacheable reads answered from the gateway read cache.' }),
  misses: counter({
    name: 'content_read_cache_misses_total',
    help: 'Cacheable reads the gateway read cache could not answer (absent, or bypassed while the change feed is down).',
  }),
  invalidations: counter({
    name: 'content_read_cache_invalidations_total',
    help: 'Invalidations of the gateway read cache, by reason: change (a change event dropped the answers it affects), write (a local write failed in transit), reset (the feed started over), clock (a publication-window boundary).',
    labelNames: ['reason'] as const,
  }),
  entries: gauge({ name: 'content_read_cache_entries', help: 'Answers held in the gateway read cache.' }),
}

const REASONS: readonly InvalidationReason[] = ['change', 'write', 'reset', 'clock']
// every reason's series exists from the start, so a rate over it is never empty
for (const reason of REASONS) readCacheMetrics.invalidations.inc({ reason }, 0)
const invalidationChildren = Object.fromEntries(REASONS.map((r) => [r, readCacheMetrics.invalidations.labels(r)])) as
  Record<InvalidationReason, { inc(): void }>

export const countInvalidation = (reason: InvalidationReason): void => invalidationChildren[reason].inc()
