import type { DeliveryRecord, WebhookRecord, WebhookSummary } from '../../core/webhooks.js'
import type { WebhooksPort } from '../../core/ports.js'
import { CHANGES_SEQUENCE } from './outbox.mongo.js'
import { DUPLICATE_KEY, type Collections } from './schema.mongo.js'

const webhookOf = ({ _id, ...rest }: { _id: string } & Omit<WebhookRecord, 'id'>): WebhookRecord => ({ id: _id, ...rest })
const deliveryOf = ({ _id, ...rest }: { _id: string } & Omit<DeliveryRecord, 'id'>): DeliveryRecord => ({ id: _id, ...rest })

/** Webhooks on MongoDB. None of these writes changes what a read shows, so none goes through the outbox. */
export function webhooksPort (c: Collections): WebhooksPort {
  return {
    async add ({ id, ...w }) {
      const after = (await c.counters.findOne({ _id: CHANGES_SEQUENCE }))?.seq ?? 0
      await c.webhooks.insertOne({ _id: id, ...w, after_seq: after })
      return { id, ...w, after_seq: after }
    },
    async list () {
      const hooks = (await c.webhooks.find().sort({ created: 1, _id: 1 }).toArray()).map(webhookOf)
      const counts = await c.deliveries.aggregate<{ _id: { w: string, s: string }, n: number }>([
        { $match: { status: { $in: ['pending', 'failed'] } } },
        { $group: { _id: { w: '$webhook_id', s: '$status' }, n: { $sum: 1 } } },
      ]).toArray()
      const count = (w: string, s: string) => counts.find((x) => x._id.w === w && x._id.s === s)?.n ?? 0
      return hooks.map((h): WebhookSummary => ({ ...h, pending: count(h.id, 'pending'), failed: count(h.id, 'failed') }))
    },
    async get (id) {
      const doc = await c.webhooks.findOne({ _id: id })
      return doc ? webhookOf(doc) : null
    },
    async remove (id) {
      const removed = (await c.webhooks.deleteOne({ _id: id })).deletedCount > 0
      await c.deliveries.deleteMany({ webhook_id: id })
      return removed
    },
    async deliveries (webhookId, limit) {
      return (await c.deliveries.find({ webhook_id: webhookId }).sort({ seq: -1 }).limit(limit).toArray()).map(deliveryOf)
    },
    async delivery (id) {
      const doc = await c.deliveries.findOne({ _id: id })
      return doc ? deliveryOf(doc) : null
    },
    async head (webhookId) {
      const doc = await c.deliveries.find({ webhook_id: webhookId, status: 'pending' }).sort({ seq: 1 }).limit(1).next()
      return doc ? deliveryOf(doc) : null
    },
    // the delivery first (its id and (webhook, seq) are unique), then the position: a crash in between
    // leaves a queued delivery whose position the next round moves on from without queueing it again
    async enqueue (webhookId, fromSeq, afterSeq, delivery) {
      if (delivery) {
        const { id, ...rest } = delivery
        try {
          await c.deliveries.insertOne({ _id: id, ...rest })
        } catch (err) {
          if ((err as { code?: unknown }).code !== DUPLICATE_KEY) throw err
        }
      }
      return (await c.webhooks.updateOne({ _id: webhookId, after_seq: fromSeq }, { $set: { after_seq: afterSeq } })).modifiedCount > 0
    },
    async save ({ id, ...rest }) {
      await c.deliveries.updateOne({ _id: id }, { $set: rest })
    },
    async pruneDeliveries (before) {
      return (await c.deliveries.deleteMany({ status: { $ne: 'pending' }, created: { $lt: before } })).deletedCount
    },
    async lowestPosition () {
      const doc = await c.webhooks.find({ active: true }).sort({ after_seq: 1 }).limit(1).next()
      return doc?.after_seq ?? null
    },
    async lease (name, holder, now, ttlMs) {
      try {
        const result = await c.leases.updateOne(
          { _id: name, $or: [{ holder }, { expires_at: { $lte: now } }] },
          { $set: { holder, expires_at: now + ttlMs } },
          { upsert: true },
        )
        return result.matchedCount + result.upsertedCount > 0
      } catch (err) {
        // another holder's unexpired lease matched nothing, and the upsert hit its _id
        if ((err as { code?: unknown }).code === DUPLICATE_KEY) return false
        throw err
      }
    },
    async release (name, holder) {
      await c.leases.deleteOne({ _id: name, holder })
    },
  }
}
