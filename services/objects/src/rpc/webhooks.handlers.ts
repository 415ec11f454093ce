import { DomainError, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { newWebhookId, parseEventTypes, webhookSecret, type DeliveryRecord, type WebhookRecord } from '../core/webhooks.js'
import { checkWebhookUrl } from '../webhooks/target.js'
import type { ObjectsServerDeps } from './deps.js'

const toWebhook = (w: WebhookRecord & { pending?: number, failed?: number }, secret = ''): v1.Webhook => ({
  id: w.id, url: w.url, events: w.events, active: w.active, created: w.created, secret, pending: w.pending ?? 0, failed: w.failed ?? 0,
})

const toDelivery = (d: DeliveryRecord): v1.WebhookDelivery => ({
  id: d.id, webhook_id: d.webhook_id, seq: d.seq, type: d.type, status: d.status, attempts: d.attempts, created: d.created,
  next_attempt_at: d.status === 'pending' ? d.next_attempt_at : 0, last_status: d.last_status, last_error: d.last_error, delivered_at: d.delivered_at ?? 0,
})

const noWebhook = (id: string) => new DomainError('WEBHOOK_NOT_FOUND', `no webhook ${id}`)

/** Subscriptions and deliveries, for the admin tool (decisions §13). A new subscription starts with the next event. */
export function webhookHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.WebhookServiceHandlers> {
  const { store } = deps
  return {
    AddWebhook: async (req) => {
      const checked = checkWebhookUrl(req.url)
      if (!checked.ok) throw new DomainError('VALIDATION_FAILED', checked.reason, { url: checked.reason })
      const events = parseEventTypes(req.events)
      const secret = webhookSecret(req.secret)
      const added = await store.webhooks.add({ id: newWebhookId(), url: checked.url.href, events, secret, active: true, created: deps.now() })
      deps.webhooksAdded?.()
      return toWebhook(added, secret)
    },
    ListWebhooks: async () => ({ webhooks: (await store.webhooks.list()).map((w) => toWebhook(w)) }),
    RemoveWebhook: async (req) => {
      if (!await store.webhooks.remove(req.id)) throw noWebhook(req.id)
      return {}
    },
    ListDeliveries: async (req) => {
      if (!await store.webhooks.get(req.webhook_id)) throw noWebhook(req.webhook_id)
      const limit = req.limit > 0 ? Math.min(req.limit, 1_000) : 50
      return { deliveries: (await store.webhooks.deliveries(req.webhook_id, limit)).map(toDelivery) }
    },
    Redeliver: async (req) => {
      const delivery = await store.webhooks.delivery(req.delivery_id)
      if (!delivery) throw new DomainError('DELIVERY_NOT_FOUND', `no delivery ${req.delivery_id}`)
      // sent again soon with the same webhook-id, in a new retry window
      const again: DeliveryRecord = { ...delivery, status: 'pending', next_attempt_at: deps.now(), first_attempt_at: null, delivered_at: null }
      await store.webhooks.save(again)
      deps.webhooksAdded?.()
      return toDelivery(again)
    },
  }
}
