import type { v1 } from '@content/protos'
import type { AdminClients } from './clients.js'
import type { Printed } from './printed.js'
import { UsageError } from './usage-error.js'

const when = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : '-')

const webhookJson = (w: v1.Webhook__Output) => ({
  id: w.id, url: w.url, events: w.events, active: w.active, created: when(w.created), pending: Number(w.pending), failed: Number(w.failed),
  ...(w.secret ? { secret: w.secret } : {}),
})

const deliveryJson = (d: v1.WebhookDelivery__Output) => ({
  id: d.id, webhook_id: d.webhook_id, seq: Number(d.seq), type: d.type, status: d.status, attempts: d.attempts, created: when(d.created),
  next_attempt_at: d.status === 'pending' ? when(d.next_attempt_at) : null, last_status: d.last_status || null,
  last_error: d.last_error || null, delivered_at: d.delivered_at ? when(d.delivered_at) : null,
})

export async function addWebhook (clients: AdminClients, url: string, events: string[], secret: string): Promise<Printed> {
  if (events.length === 0) throw new UsageError('webhooks add needs --events <type,…> or --events "*"')
  const added = webhookJson(await clients.webhooks.AddWebhook({ url, events, secret }))
  return {
    json: added,
    text: [
      `webhook ${added.id} added: ${added.url} (${added.events.join(', ')}); it starts with the next change`,
      `secret (shown once; receivers verify signatures with it): ${added.secret}`,
    ].join('\n'),
  }
}

export async function listWebhooks (clients: AdminClients): Promise<Printed> {
  const hooks = (await clients.webhooks.ListWebhooks({})).webhooks.map(webhookJson)
  const text = hooks.length === 0
    ? 'no webhooks'
    : hooks.map((h) => `${h.id}  ${h.url}  events: ${h.events.join(',')}  pending: ${h.pending}  failed: ${h.failed}`).join('\n')
  return { json: hooks, text }
}

export async function removeWebhook (clients: AdminClients, id: string): Promise<Printed> {
  await clients.webhooks.RemoveWebhook({ id })
  return { json: { id, removed: true }, text: `webhook ${id} removed` }
}

export async function listDeliveries (clients: AdminClients, id: string, limit: number): Promise<Printed> {
  const list = (await clients.webhooks.ListDeliveries({ webhook_id: id, limit })).deliveries.map(deliveryJson)
  const text = list.length === 0
    ? `no deliveries for ${id} yet`
    : list.map((d) => `${d.id}  #${d.seq} ${d.type}  ${d.status}  attempts: ${d.attempts}${d.last_status ? `  last: HTTP ${d.last_status}` : ''}${d.last_error ? `  ${d.last_error}` : ''}${d.next_attempt_at ? `  next: ${d.next_attempt_at}` : ''}`).join('\n')
  return { json: list, text }
}

export async function redeliver (clients: AdminClients, deliveryId: string): Promise<Printed> {
  const d = deliveryJson(await clients.webhooks.Redeliver({ delivery_id: deliveryId }))
  return { json: d, text: `delivery ${d.id} (#${d.seq} ${d.type}) queued again with the same webhook-id` }
}
