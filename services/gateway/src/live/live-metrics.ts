import { counter, gauge } from '@content/platform'

/** Why a live stream ended on the gateway's side. */
export type LiveDropReason =
  /** its client did not read: its buffer passed LIVE_MAX_BUFFER_BYTES */
  | 'slow'
  /** its session was revoked or its user disabled */
  | 'revoked'
  /** the gateway shut down */
  | 'shutdown'

export const liveMetrics = {
  open: gauge({ name: 'content_live_streams', help: 'Live change streams (GET /changes) open on this gateway.' }),
  sent: counter({ name: 'content_live_events_sent_total', help: 'Events written to live change streams (one per stream it went to; pings and resets not counted).' }),
  dropped: counter({
    name: 'content_live_streams_dropped_total',
    help: 'Live change streams the gateway ended, by reason: slow (the client did not read), revoked (session revoked or user disabled), shutdown.',
    labelNames: ['reason'] as const,
  }),
  refused: counter({
    name: 'content_live_streams_refused_total',
    help: 'Live change streams refused at open, by limit: gateway (LIVE_MAX_STREAMS, 503), caller (LIVE_MAX_STREAMS_PER_CALLER, 429).',
    labelNames: ['limit'] as const,
  }),
}

for (const reason of ['slow', 'revoked', 'shutdown']) liveMetrics.dropped.inc({ reason }, 0)
for (const limit of ['gateway', 'caller']) liveMetrics.refused.inc({ limit }, 0)
