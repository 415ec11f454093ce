import { counter, histogram } from '@content/platform'

export const webhookMetrics = {
  attempts: counter({
    name: 'content_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome: delivered (a 2xx), retry (failed, tried again later), failed (given up after the retry window).',
    labelNames: ['outcome'] as const,
  }),
  lag: histogram({
    name: 'content_webhook_delivery_lag_seconds',
    help: 'From the commit of a change to the 2xx of its webhook delivery.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86400],
  }),
}

for (const outcome of ['delivered', 'retry', 'failed'] as const) webhookMetrics.attempts.inc({ outcome }, 0)
