import { counter, gauge } from '@content/platform'

/** How a change-feed stream ended. */
export type StreamResetCause =
  /** the stream failed (the connection dropped, the objects service went away or refused) */
  | 'error'
  /** the objects service ended it (its shutdown) */
  | 'ended'
  /** no message, not even a heartbeat, within the silence limit: given up and cancelled */
  | 'silent'

/** How the feed came back after a reset. */
export type ResumeOutcome =
  /** the missed events were replayed before the resume grace ran out: the cache was never bypassed */
  | 'replayed'
  /** the missed events were replayed, after a time during which the cache was bypassed */
  | 'after_bypass'
  /** replay was impossible (pruned, another store): the cache was emptied */
  | 'started_over'

/** Why a cacheable read was not looked up in the cache. */
export type BypassReason =
  /** the change feed was down */
  | 'feed_down'
  /** the feed had not yet told a write acknowledged through this gateway (read-your-writes) */
  | 'behind_write'

export const changeFeedMetrics = {
  resets: counter({
    name: 'content_change_feed_resets_total',
    help: 'Change-feed streams from the objects service that ended, by cause: error (failed, e.g. the connection dropped), ended (the service ended it), silent (no message or heartbeat within the silence limit).',
    labelNames: ['cause'] as const,
  }),
  resumes: counter({
    name: 'content_change_feed_resumes_total',
    help: 'Change-feed resumptions after a reset, by outcome: replayed (missed events replayed without bypassing the cache), after_bypass (replayed after the cache was bypassed meanwhile), started_over (replay impossible: the cache was emptied).',
    labelNames: ['outcome'] as const,
  }),
  live: gauge({ name: 'content_change_feed_live', help: '1 while the read cache follows the change feed (reads may be served from it), 0 while it is bypassed.' }),
  bypassed: counter({
    name: 'content_read_cache_bypassed_total',
    help: 'Cacheable reads sent to the backend without looking in the read cache, by reason: feed_down (the change feed was down), behind_write (the feed had not yet told a write acknowledged here, after a bounded wait for it). Also counted as misses.',
    labelNames: ['reason'] as const,
  }),
}

/** Every label's series from the start, so a rate over it is never empty; and children bound once (hot path). */
function children<L extends string> (metric: { inc(labels: Record<string, string>, value: number): void, labels(...values: string[]): { inc(): void } }, label: string, values: readonly L[]): Record<L, { inc(): void }> {
  for (const value of values) metric.inc({ [label]: value }, 0)
  return Object.fromEntries(values.map((v) => [v, metric.labels(v)])) as Record<L, { inc(): void }>
}

const resetChildren = children<StreamResetCause>(changeFeedMetrics.resets, 'cause', ['error', 'ended', 'silent'])
const resumeChildren = children<ResumeOutcome>(changeFeedMetrics.resumes, 'outcome', ['replayed', 'after_bypass', 'started_over'])
const bypassChildren = children<BypassReason>(changeFeedMetrics.bypassed, 'reason', ['feed_down', 'behind_write'])

export const countStreamReset = (cause: StreamResetCause): void => resetChildren[cause].inc()
export const countResume = (outcome: ResumeOutcome): void => resumeChildren[outcome].inc()
export const countBypass = (reason: BypassReason): void => bypassChildren[reason].inc()
