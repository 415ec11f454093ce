import type { Logger } from '@content/platform'
import { present } from '@content/platform'
import { webhookPayload, type ChangeEvent } from '../core/change-events.js'
import { coalesced } from '../core/coalesced.js'
import { afterAttempt, newDeliveryId, RETRY, wants, type DeliveryRecord, type RetryPolicy, type WebhookRecord } from '../core/webhooks.js'
import type { ObjectsStore } from '../core/ports.js'
import type { SendOutcome, WebhookMessage } from './send.js'
import { webhookMetrics } from './webhook-metrics.js'

export interface DeliveryLoopOptions {
  store: ObjectsStore
  /** this process's name in the lease */
  holder: string
  now: () => number
  send: (url: string, message: WebhookMessage, secret: string) => Promise<SendOutcome>
  log: Logger
  tickMs?: number
  leaseTtlMs?: number
  retry?: RetryPolicy
}

const LEASE = 'webhook-delivery'
/** outbox events read per round while looking for a subscription's next wanted one */
const SCAN = 200

/** A delivery of `event` to `hook`, queued at `now`: its body is made once, so every retry sends the same bytes. */
function queued (hook: WebhookRecord, event: ChangeEvent, now: number): DeliveryRecord {
  return {
    id: newDeliveryId(), webhook_id: hook.id, seq: event.seq, type: event.type, payload: JSON.stringify(webhookPayload(event)),
    status: 'pending', attempts: 0, created: now, first_attempt_at: null, next_attempt_at: now, last_status: 0, last_error: '', delivered_at: null,
  }
}

/**
 * Delivers the outbox to the webhook subscriptions, outside any request. One process at a time holds
 * the lease (renewed every tick); the others wait for it to lapse. Each subscription advances on its
 * own, one delivery at a time in sequence order: a failing delivery holds back the later ones of its
 * subscription until it succeeds or its retry window ends, and a slow receiver delays no one else.
 */
export class DeliveryLoop {
  private readonly busy = new Set<string>()
  /** whether the last round found no active subscription */
  private idle = false
  private timer: NodeJS.Timeout | null = null
  private closed = false
  private readonly rounds = coalesced(() => this.round(), (err) => this.o.log.error({ err }, 'webhook delivery round failed'))
  private readonly tickMs: number
  private readonly leaseTtlMs: number

  constructor (private readonly o: DeliveryLoopOptions) {
    this.tickMs = o.tickMs ?? 500
    this.leaseTtlMs = o.leaseTtlMs ?? 10_000
  }

  start (): void {
    this.timer = setInterval(() => this.poke(), this.tickMs)
    this.timer.unref()
    this.poke()
  }

  /** A round soon (a subscription added here, so its deliveries do not wait for the next tick). */
  poke (): void {
    if (!this.closed) this.rounds.run()
  }

  /**
   * Changes committed: a round soon, so deliveries do not wait for the next tick — unless the last round
   * found no active subscription. Then the tick looks again (one added on another replica is found
   * within it; one added here pokes): a commit costs no look-up of the subscriptions while there are none.
   */
  committed (): void {
    if (!this.idle) this.poke()
  }

  private async round (): Promise<void> {
    const { store, holder, now } = this.o
    const hooks = (await store.webhooks.list()).filter((h) => h.active)
    this.idle = hooks.length === 0
    // with no subscription there is nothing to hold the lease for
    if (hooks.length === 0 || !await store.webhooks.lease(LEASE, holder, now(), this.leaseTtlMs)) return
    for (const hook of hooks) {
      if (this.busy.has(hook.id) || this.closed) continue
      this.busy.add(hook.id)
      void this.advance(hook)
        .catch((err: unknown) => this.o.log.error({ err, webhook: hook.id }, 'webhook delivery failed'))
        .finally(() => this.busy.delete(hook.id))
    }
  }

  /** Attempts what is due for one subscription, queueing its next wanted events as it goes. */
  private async advance (hook: WebhookRecord): Promise<void> {
    const { store, now } = this.o
    while (!this.closed) {
      const head = await store.webhooks.head(hook.id)
      if (head === null) {
        if (!await this.queueNext(hook)) return
        continue
      }
      if (head.next_attempt_at > now()) return
      const at = now()
      const outcome = await this.o.send(hook.url, { id: head.id, timestamp: new Date(at), body: head.payload }, hook.secret)
      const next = afterAttempt(head, outcome, now(), this.o.retry ?? RETRY)
      await store.webhooks.save(next)
      if (next.status === 'delivered') {
        webhookMetrics.attempts.inc({ outcome: 'delivered' })
        const committed = Date.parse((JSON.parse(head.payload) as { timestamp: string }).timestamp)
        webhookMetrics.lag.observe(Math.max(0, now() - committed) / 1000)
      } else {
        webhookMetrics.attempts.inc({ outcome: next.status === 'failed' ? 'failed' : 'retry' })
        this.o.log.warn({ webhook: hook.id, delivery: head.id, attempts: next.attempts, error: next.last_error, status: next.status }, 'webhook delivery failed')
        if (next.status === 'pending') return
      }
    }
  }

  /** Queues the subscription's next wanted event (moving its position past unwanted ones); false when there is none yet. */
  private async queueNext (hook: WebhookRecord): Promise<boolean> {
    const events = await this.o.store.changes.after(hook.after_seq, SCAN)
    if (events.length === 0) return false
    const wanted = events.find((e) => wants(hook, e.type))
    const upTo = wanted ? wanted.seq : present(events[events.length - 1], 'the last event').seq
    const moved = await this.o.store.webhooks.enqueue(hook.id, hook.after_seq, upTo, wanted ? queued(hook, wanted, this.o.now()) : null)
    if (!moved) return false // removed, or moved by another holder: the next round reads it afresh
    hook.after_seq = upTo
    return true
  }

  /** Stops, and hands the lease back so another process takes over at once instead of after its lapse. */
  async close (): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.rounds.idle()
    await this.o.store.webhooks.release(LEASE, this.o.holder).catch((err: unknown) => this.o.log.warn({ err }, 'webhook lease not released'))
  }
}
