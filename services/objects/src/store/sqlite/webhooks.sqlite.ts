import { present } from '@content/platform'
import type { ChangeType } from '../../core/change-events.js'
import type { WebhooksPort } from '../../core/ports.js'
import type { DeliveryRecord, DeliveryStatus, WebhookRecord, WebhookSummary } from '../../core/webhooks.js'
import { lastChangeSeq } from './outbox.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions } from './transactions.sqlite.js'

interface WebhookRow { id: string, url: string, events: string, secret: string, active: number, created: number, after_seq: number }
interface DeliveryRow extends Omit<DeliveryRecord, 'type' | 'status'> { type: string, status: string }

const toWebhook = (r: WebhookRow): WebhookRecord => ({ ...r, events: JSON.parse(r.events) as string[], active: r.active === 1 })
const toDelivery = (r: DeliveryRow): DeliveryRecord => ({ ...r, type: r.type as ChangeType, status: r.status as DeliveryStatus })

export function addWebhook (st: Statements, w: Omit<WebhookRecord, 'after_seq'>): WebhookRecord {
  const row = { ...w, events: JSON.stringify(w.events), active: w.active ? 1 : 0, after_seq: lastChangeSeq(st) }
  st.run('INSERT INTO webhooks (id, url, events, secret, active, created, after_seq) VALUES (@id, @url, @events, @secret, @active, @created, @after_seq)', row)
  return { ...w, after_seq: row.after_seq }
}

export function listWebhooks (st: Statements): WebhookSummary[] {
  return st.all<WebhookRow & { pending: number, failed: number }>(`SELECT w.*,
    (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') AS pending,
    (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'failed') AS failed
    FROM webhooks w ORDER BY w.created, w.id`).map((r) => ({ ...toWebhook(r), pending: r.pending, failed: r.failed }))
}

function getWebhook (st: Statements, id: string): WebhookRecord | null {
  const row = st.one<WebhookRow>('SELECT * FROM webhooks WHERE id = @id', { id })
  return row ? toWebhook(row) : null
}

export const removeWebhook = (st: Statements, id: string): boolean => st.run('DELETE FROM webhooks WHERE id = @id', { id }).changes > 0

export function listDeliveries (st: Statements, webhookId: string, limit: number): DeliveryRecord[] {
  return st.all<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = @w ORDER BY seq DESC LIMIT @limit', { w: webhookId, limit }).map(toDelivery)
}

function getDelivery (st: Statements, id: string): DeliveryRecord | null {
  const row = st.one<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = @id', { id })
  return row ? toDelivery(row) : null
}

function headDelivery (st: Statements, webhookId: string): DeliveryRecord | null {
  const row = st.one<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook_id = @w AND status = 'pending' ORDER BY seq LIMIT 1", { w: webhookId })
  return row ? toDelivery(row) : null
}

const DELIVERY_COLUMNS = ['id', 'webhook_id', 'seq', 'type', 'payload', 'status', 'attempts', 'created', 'first_attempt_at', 'next_attempt_at', 'last_status', 'last_error', 'delivered_at']

function enqueueDelivery (st: Statements, webhookId: string, fromSeq: number, afterSeq: number, delivery: DeliveryRecord | null): boolean {
  const moved = st.run('UPDATE webhooks SET after_seq = @to WHERE id = @id AND after_seq = @from', { id: webhookId, from: fromSeq, to: afterSeq }).changes > 0
  if (moved && delivery) {
    st.run(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS.join(', ')}) VALUES (${DELIVERY_COLUMNS.map((c) => `@${c}`).join(', ')})`, delivery)
  }
  return moved
}

function saveDelivery (st: Statements, d: DeliveryRecord): void {
  st.run(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, first_attempt_at = @first_attempt_at,
    next_attempt_at = @next_attempt_at, last_status = @last_status, last_error = @last_error, delivered_at = @delivered_at WHERE id = @id`, d)
}

export const pruneDeliveries = (st: Statements, before: number): number =>
  st.run("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created < @before", { before }).changes

export const lowestPosition = (st: Statements): number | null =>
  present(st.one<{ s: number | null }>('SELECT MIN(after_seq) AS s FROM webhooks WHERE active = 1'), 'the MIN row').s

function takeLease (st: Statements, name: string, holder: string, now: number, ttlMs: number): boolean {
  return st.run(`INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @until)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`, { name, holder, until: now + ttlMs, now }).changes > 0
}

function releaseLease (st: Statements, name: string, holder: string): void {
  st.run('DELETE FROM leases WHERE name = @name AND holder = @holder', { name, holder })
}

/** Webhooks on SQLite. None of these writes changes what a read shows, so none goes through the outbox. */
export function webhooksPort (st: Statements, tx: Transactions): WebhooksPort {
  return {
    add: (w) => tx.unseen(() => addWebhook(st, w)),
    list: () => answer(() => listWebhooks(st)),
    get: (id) => answer(() => getWebhook(st, id)),
    remove: (id) => tx.unseen(() => removeWebhook(st, id)),
    deliveries: (id, limit) => answer(() => listDeliveries(st, id, limit)),
    delivery: (id) => answer(() => getDelivery(st, id)),
    head: (id) => answer(() => headDelivery(st, id)),
    enqueue: (id, from, to, delivery) => tx.unseen(() => enqueueDelivery(st, id, from, to, delivery)),
    save: (delivery) => tx.unseen(() => saveDelivery(st, delivery)),
    pruneDeliveries: (before) => tx.unseen(() => pruneDeliveries(st, before)),
    lowestPosition: () => answer(() => lowestPosition(st)),
    lease: (name, holder, now, ttl) => tx.unseen(() => takeLease(st, name, holder, now, ttl)),
    release: (name, holder) => tx.unseen(() => releaseLease(st, name, holder)),
  }
}
