import { randomBytes } from 'node:crypto'
import { DomainError, present } from '@content/platform'
import { CHANGE_TYPES, isChangeType, type ChangeType } from './change-events.js'

/** A subscription (decisions §13). `after_seq`: every event up to it has a delivery or was not wanted. */
export interface WebhookRecord {
  id: string
  url: string
  /** event types, or ['*'] */
  events: string[]
  secret: string
  active: boolean
  created: number
  after_seq: number
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface DeliveryRecord {
  /** the webhook-id header: the same for every attempt */
  id: string
  webhook_id: string
  seq: number
  type: ChangeType
  /** the JSON body, made once when the delivery is queued */
  payload: string
  status: DeliveryStatus
  attempts: number
  created: number
  /** when the retry window began (the first attempt, or a manual redelivery) */
  first_attempt_at: number | null
  next_attempt_at: number
  last_status: number
  last_error: string
  delivered_at: number | null
}

export interface WebhookSummary extends WebhookRecord { pending: number, failed: number }

const invalid = (field: string, message: string) =>
  new DomainError('VALIDATION_FAILED', message, { [field]: message })

/** `*` alone, or known event types (each once). */
export function parseEventTypes (events: readonly string[]): string[] {
  const list = [...new Set(events.map((e) => e.trim()).filter((e) => e !== ''))]
  if (list.length === 0) throw invalid('events', 'name the event types, or * for all')
  if (list.includes('*')) {
    if (list.length > 1) throw invalid('events', '* stands alone')
    return ['*']
  }
  const unknown = list.filter((e) => !isChangeType(e))
  if (unknown.length > 0) throw invalid('events', `unknown event type ${unknown.join(', ')}; known: ${CHANGE_TYPES.join(', ')}`)
  return list
}

export const wants = (webhook: Pick<WebhookRecord, 'events'>, type: string): boolean =>
  webhook.events[0] === '*' || webhook.events.includes(type)

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/

/** A given secret must be `whsec_` + base64 of 24 to 64 bytes; none given, one is made. */
export function webhookSecret (given: string): string {
  if (given === '') return `whsec_${randomBytes(32).toString('base64')}`
  const match = SECRET.exec(given)
  const bytes = match ? Buffer.from(present(match[1], 'the secret bytes'), 'base64').length : 0
  if (bytes < 24 || bytes > 64) throw invalid('secret', 'a secret is whsec_ followed by the base64 of 24 to 64 random bytes')
  return given
}

export const newWebhookId = (): string => `wh_${randomBytes(12).toString('base64url')}`
export const newDeliveryId = (): string => `msg_${randomBytes(15).toString('base64url')}`

export interface RetryPolicy {
  /** delay before the second attempt; each later one doubles, up to `maxDelayMs` */
  firstDelayMs: number
  maxDelayMs: number
  /** how long after the first attempt a delivery keeps being retried before it is marked failed */
  windowMs: number
}

export const RETRY: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 3_600_000, windowMs: 24 * 3_600_000 }

/** The delivery after an attempt at `now` that got `outcome`. */
export function afterAttempt (
  delivery: DeliveryRecord, outcome: { ok: boolean, status?: number, error?: string }, now: number, policy: RetryPolicy = RETRY,
): DeliveryRecord {
  const attempts = delivery.attempts + 1
  const first = delivery.first_attempt_at ?? now
  const base = { ...delivery, attempts, first_attempt_at: first, last_status: outcome.status ?? 0, last_error: outcome.ok ? '' : (outcome.error ?? 'failed').slice(0, 500) }
  if (outcome.ok) return { ...base, status: 'delivered', delivered_at: now }
  const delay = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempts - 1))
  if (now + delay - first > policy.windowMs) return { ...base, status: 'failed' }
  return { ...base, status: 'pending', next_attempt_at: now + delay }
}
