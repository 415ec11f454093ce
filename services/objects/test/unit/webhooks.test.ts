import { describe, expect, it } from 'vitest'
import { webhookPayload, type ChangeEvent } from '../../src/core/change-events.js'
import { afterAttempt, parseEventTypes, webhookSecret, wants, type DeliveryRecord } from '../../src/core/webhooks.js'

const delivery: DeliveryRecord = {
  id: 'msg_1', webhook_id: 'wh_1', seq: 4, type: 'object.created', payload: '{}', status: 'pending', attempts: 0, created: 0,
  first_attempt_at: null, next_attempt_at: 0, last_status: 0, last_error: '', delivered_at: null,
}
const policy = { firstDelayMs: 1_000, maxDelayMs: 8_000, windowMs: 30_000 }

describe('webhook subscriptions', () => {
  it('when event types are given, then * stands alone and every other name must be a known type', () => {
    expect(parseEventTypes(['*'])).toEqual(['*'])
    expect(parseEventTypes([' object.created', 'object.created', 'child.added '])).toEqual(['object.created', 'child.added'])
    // decisions §16: the lifecycle's events can be subscribed to by name
    expect(parseEventTypes(['object.published', 'object.unpublished', 'object.trashed', 'object.restored'])).toEqual(['object.published', 'object.unpublished', 'object.trashed', 'object.restored'])
    expect(() => parseEventTypes([])).toThrow(/event types/)
    expect(() => parseEventTypes(['*', 'object.created'])).toThrow(/alone/)
    expect(() => parseEventTypes(['object.exploded'])).toThrow(/unknown event type object.exploded/)
    expect(wants({ events: ['*'] }, 'file.changed')).toBe(true)
    expect(wants({ events: ['object.created'] }, 'object.deleted')).toBe(false)
  })

  it('when no secret is given, then one is made; a given one must be whsec_ and 24 to 64 bytes of base64', () => {
    const made = webhookSecret('')
    expect(made).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(Buffer.from(made.slice(6), 'base64')).toHaveLength(32)
    const given = `whsec_${Buffer.alloc(24, 7).toString('base64')}`
    expect(webhookSecret(given)).toBe(given)
    for (const bad of ['secret', `whsec_${Buffer.alloc(8).toString('base64')}`, `whsec_${Buffer.alloc(65).toString('base64')}`, 'whsec_!!!!']) {
      expect(() => webhookSecret(bad)).toThrow(/whsec_/)
    }
  })

  it('when an attempt succeeds, then the delivery is delivered; when it fails, it is retried later and later, then given up', () => {
    expect(afterAttempt(delivery, { ok: true, status: 204 }, 100, policy)).toMatchObject({ status: 'delivered', attempts: 1, delivered_at: 100, last_status: 204, first_attempt_at: 100 })
    let d = delivery
    const delays: number[] = []
    let now = 0
    for (;;) {
      d = afterAttempt(d, { ok: false, status: 500, error: 'HTTP 500' }, now, policy)
      if (d.status !== 'pending') break
      delays.push(d.next_attempt_at - now)
      now = d.next_attempt_at
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000])
    expect(d).toMatchObject({ status: 'failed', last_status: 500, last_error: 'HTTP 500', first_attempt_at: 0 })
    expect(now + 8_000).toBeGreaterThan(policy.windowMs)
  })

  it('when an event becomes a payload, then it carries ids and types only, in the Standard Webhooks shape', () => {
    const event: ChangeEvent = { seq: 7, type: 'relation.created', object_id: 3, object_type: 'document', related_id: 9, related_type: 'image', relation: 'attach', at: Date.UTC(2026, 0, 2), affects: [3, 9] }
    expect(webhookPayload(event)).toEqual({
      type: 'relation.created', timestamp: '2026-01-02T00:00:00.000Z',
      data: { seq: 7, object_id: 3, object_type: 'document', relation: 'attach', related_id: 9, related_type: 'image' },
    })
  })
})
