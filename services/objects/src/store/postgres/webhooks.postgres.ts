import type { ChangeType } from '../../core/change-events.js'
import type { WebhooksPort } from '../../core/ports.js'
import type { DeliveryRecord, DeliveryStatus, WebhookRecord } from '../../core/webhooks.js'
import type { Db } from './db.postgres.js'
import { lastChangeSeq } from './outbox.postgres.js'
import type { Transactions } from './transactions.postgres.js'

interface WebhookRow { id: string, url: string, events: string, secret: string, active: number, created: number, after_seq: number }
interface DeliveryRow extends Omit<DeliveryRecord, 'type' | 'status'> { type: string, status: string }

const toWebhook = (r: WebhookRow): WebhookRecord => ({ ...r, events: JSON.parse(r.events) as string[], active: r.active === 1 })
const toDelivery = (r: DeliveryRow): DeliveryRecord => ({ ...r, type: r.type as ChangeType, status: r.status as DeliveryStatus })
const DELIVERY_COLUMNS = ['id', 'webhook_id', 'seq', 'type', 'payload', 'status', 'attempts', 'created', 'first_attempt_at', 'next_attempt_at', 'last_status', 'last_error', 'delivered_at']

/**
 * Webhooks on PostgreSQL (webhooks.sqlite.ts). The delivery loop's lease is one upsert that takes the row
 * only from its holder or once it expired, so one process of all those on the database delivers; a
 * subscription's position moves only from where the mover read it (`enqueue`), so no event is queued twice.
 */
export function webhooksPort (db: Db, tx: Transactions): WebhooksPort {
  return {
    add: (w) => tx.unseen(async (t) => {
      const row = { ...w, events: JSON.stringify(w.events), active: w.active ? 1 : 0, after_seq: await lastChangeSeq(t) }
      await t.run('INSERT INTO webhooks (id, url, events, secret, active, created, after_seq) VALUES (@id, @url, @events, @secret, @active, @created, @after_seq)', row)
      return { ...w, after_seq: row.after_seq }
    }),
    list: async () => (await db.all<WebhookRow & { pending: number, failed: number }>(`SELECT w.*,
      (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') AS pending,
      (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'failed') AS failed
      FROM webhooks w ORDER BY w.created, w.id`)).map((r) => ({ ...toWebhook(r), pending: r.pending, failed: r.failed })),
    get: async (id) => {
      const row = await db.one<WebhookRow>('SELECT * FROM webhooks WHERE id = @id', { id })
      return row ? toWebhook(row) : null
    },
    remove: (id) => tx.unseen(async (t) => await t.run('DELETE FROM webhooks WHERE id = @id', { id }) > 0),
    deliveries: async (id, limit) => (await db.all<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = @w ORDER BY seq DESC LIMIT @limit', { w: id, limit })).map(toDelivery),
    delivery: async (id) => {
      const row = await db.one<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = @id', { id })
      return row ? toDelivery(row) : null
    },
    head: async (id) => {
      const row = await db.one<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook_id = @w AND status = 'pending' ORDER BY seq LIMIT 1", { w: id })
      return row ? toDelivery(row) : null
    },
    enqueue: (id, from, to, delivery) => tx.unseen(async (t) => {
      const moved = await t.run('UPDATE webhooks SET after_seq = @to WHERE id = @id AND after_seq = @from', { id, from, to }) > 0
      if (moved && delivery) {
        await t.run(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS.join(', ')}) VALUES (${DELIVERY_COLUMNS.map((c) => `@${c}`).join(', ')})`, { ...delivery })
      }
      return moved
    }),
    save: (d) => tx.unseen(async (t) => {
      await t.run(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, first_attempt_at = @first_attempt_at,
        next_attempt_at = @next_attempt_at, last_status = @last_status, last_error = @last_error, delivered_at = @delivered_at WHERE id = @id`, { ...d })
    }),
    pruneDeliveries: (before) => tx.unseen((t) => t.run("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created < @before", { before })),
    lowestPosition: async () => (await db.one<{ s: number | null }>('SELECT MIN(after_seq) AS s FROM webhooks WHERE active = 1'))?.s ?? null,
    lease: (name, holder, now, ttl) => tx.unseen(async (t) => await t.run(`INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @until)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`, { name, holder, until: now + ttl, now }) > 0),
    release: (name, holder) => tx.unseen(async (t) => { await t.run('DELETE FROM leases WHERE name = @name AND holder = @holder', { name, holder }) }),
  }
}
