import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, metricsRegistry, parseExposition, sampleOf } from '@content/platform'
import { Webhook } from 'standardwebhooks'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { newWebhookId } from '../../src/core/webhooks.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { startOutboxRetention } from '../../src/outbox-retention.js'
import { DeliveryLoop } from '../../src/webhooks/delivery-loop.js'
import { sendWebhook } from '../../src/webhooks/send.js'
import { draft } from './store.contract.js'
import { must } from '../support/must.js'

const secret = `whsec_${randomBytes(24).toString('base64')}`
const log = createLogger({ service: 'objects', level: 'silent' })
const retry = { firstDelayMs: 40, maxDelayMs: 160, windowMs: 1_000 }

/**
 * vi.waitFor with room for a loaded machine: its default second is shorter than deliveries take when
 * every test project runs at once on two cores. A condition met sooner returns sooner.
 */
const waitFor: typeof vi.waitFor = (callback, options) =>
  vi.waitFor(callback, { timeout: 10_000, ...(typeof options === 'number' ? { timeout: options } : options) })

interface Received { id: string, seq: number, type: string, verified: boolean }

let dir: string
let store: ObjectsStore
const servers: Server[] = []
const loops: DeliveryLoop[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'objects-webhooks-'))
  store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
})
afterEach(async () => {
  for (const l of loops.splice(0)) await l.close()
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve).closeAllConnections())
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A receiver that verifies every signature and answers what `answer` says (a status, or 'hang'). */
async function receiver (answer: (n: number) => number | 'hang' = () => 204) {
  const got: Received[] = []
  let n = 0
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      let verified = true
      try { new Webhook(secret).verify(body, headers) } catch { verified = false }
      const parsed = JSON.parse(body) as { type: string, data: { seq: number } }
      got.push({ id: must(headers['webhook-id']), seq: parsed.data.seq, type: parsed.type, verified })
      const a = answer(n++)
      if (a !== 'hang') res.writeHead(a).end()
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, got }
}

function loop (holder = 'p1', timeoutMs = 2_000): DeliveryLoop {
  const l = new DeliveryLoop({
    store, holder, now: Date.now, log, tickMs: 20, leaseTtlMs: 300, retry,
    send: (url, message, s) => sendWebhook(url, message, { secret: s, timeoutMs, policy: { allowPrivate: true } }),
  })
  loops.push(l)
  l.start()
  return l
}

const subscribe = (url: string, events = ['*']) => store.webhooks.add({ id: newWebhookId(), url, events, secret, active: true, created: Date.now() })

const types = (got: Received[]) => got.map((g) => g.type)

describe('webhook deliveries', () => {
  it('when no subscription is active, then a commit costs no look-up of the subscriptions; the tick and an added one still look', async () => {
    let looked = 0
    const counted = { ...store, webhooks: { ...store.webhooks, list: () => { looked++; return store.webhooks.list() } } }
    const l = new DeliveryLoop({ store: counted, holder: 'p1', now: Date.now, log, tickMs: 60_000, leaseTtlMs: 300, retry, send: async () => ({ ok: true, status: 204, ms: 1 }) })
    loops.push(l)
    l.start()
    await waitFor(() => expect(looked).toBe(1))
    for (let i = 0; i < 5; i++) l.committed()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(looked).toBe(1)
    // a subscription added on this process pokes the loop; from then on every commit starts a round
    await subscribe((await receiver()).url)
    l.poke()
    await waitFor(() => expect(looked).toBe(2))
    l.committed()
    await waitFor(() => expect(looked).toBe(3))
  })

  it('when changes commit after a subscription, then each wanted one arrives once, signed, in order; earlier ones never', async () => {
    const before = await store.objects.create(draft('document', 'Before'), 1)
    const r = await receiver()
    const hook = await subscribe(r.url, ['object.created', 'child.added', 'object.deleted'])
    loop()
    const s = await store.objects.create({ ...draft('section', 'S'), links: { parents: [1], relations: [] } }, 2)
    const d = await store.objects.create({ ...draft('document', 'D'), links: { parents: [s], relations: [] } }, 3)
    await store.objects.update(d, { columns: { title: 'D2' }, user_id: 1, extras: {} }, 4) // not wanted
    await store.objects.remove(before)
    await waitFor(() => expect(r.got).toHaveLength(5))
    expect(types(r.got)).toEqual(['object.created', 'child.added', 'object.created', 'child.added', 'object.deleted'])
    const seqs = r.got.map((g) => g.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(r.got.every((g) => g.verified)).toBe(true)
    expect(new Set(r.got.map((g) => g.id)).size).toBe(5)
    // the receiver has each request before its sender hears the 200 and records the delivery
    await waitFor(async () => {
      const deliveries = await store.webhooks.deliveries(hook.id, 100)
      expect(deliveries.map((x) => [x.status, x.attempts])).toEqual(Array(5).fill(['delivered', 1]))
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(r.got).toHaveLength(5) // nothing twice
  })

  it('when a delivery keeps failing, then it is retried with the same webhook-id and holds the later ones back until it succeeds', async () => {
    const scrape = async () => parseExposition(await metricsRegistry.metrics())
    const before = await scrape()
    const r = await receiver((n) => (n < 3 ? 500 : 200))
    const hook = await subscribe(r.url)
    loop()
    await store.objects.create(draft('document', 'A'), 1)
    await store.objects.create(draft('document', 'B'), 1)
    await waitFor(() => expect(r.got).toHaveLength(5))
    expect(r.got.slice(0, 4).map((g) => g.id)).toEqual(Array(4).fill(must(r.got[0]).id)) // three failures, then the success
    expect(r.got.map((g) => g.seq)).toEqual([1, 1, 1, 1, 2])
    // the receiver has the last request before its sender hears the 200, records the delivery and counts it
    await waitFor(async () => {
      const [second, first] = await store.webhooks.deliveries(hook.id, 10)
      expect(first).toMatchObject({ status: 'delivered', attempts: 4, last_status: 200, seq: 1 })
      expect(second).toMatchObject({ status: 'delivered', attempts: 1, seq: 2 })
      const after = await scrape()
      const moved = (name: string, labels: Record<string, string> = {}) => sampleOf(after, name, labels) - sampleOf(before, name, labels)
      expect(moved('content_webhook_attempts_total', { outcome: 'retry' })).toBe(3)
      expect(moved('content_webhook_attempts_total', { outcome: 'delivered' })).toBe(2)
      expect(moved('content_webhook_delivery_lag_seconds_count')).toBe(2)
    })
  })

  it('when a delivery fails past its retry window, then it is marked failed, the next goes on, and a redelivery sends it again', async () => {
    let down = true
    const r = await receiver(() => (down ? 503 : 204))
    const hook = await subscribe(r.url)
    loop()
    await store.objects.create(draft('document', 'A'), 1)
    const [failed] = await waitFor(async () => {
      const list = await store.webhooks.deliveries(hook.id, 10)
      expect(list[0]?.status).toBe('failed')
      return list
    })
    expect(failed).toMatchObject({ last_status: 503, last_error: 'HTTP 503' })
    down = false
    await store.objects.create(draft('document', 'B'), 1)
    await waitFor(async () => expect((await store.webhooks.deliveries(hook.id, 10))[0]).toMatchObject({ seq: 2, status: 'delivered' }))
    await store.webhooks.save({ ...must(failed), status: 'pending', next_attempt_at: Date.now(), first_attempt_at: null })
    await waitFor(async () => expect((await store.webhooks.delivery(must(failed).id))?.status).toBe('delivered'))
    expect(r.got.filter((g) => g.id === must(failed).id).length).toBeGreaterThan(1)
  })

  it('when one receiver hangs, then another subscription is delivered meanwhile', async () => {
    const slow = await receiver(() => 'hang')
    const fast = await receiver()
    await subscribe(slow.url)
    await subscribe(fast.url)
    loop('p1', 1_500)
    await store.objects.create(draft('document', 'A'), 1)
    await store.objects.create(draft('document', 'B'), 1)
    await waitFor(() => expect(fast.got).toHaveLength(2), { timeout: 1_000 })
    expect(slow.got).toHaveLength(1) // still waiting for its answer
  })

  it('when two processes run the loop, then one holds the lease and every event is delivered once', async () => {
    const r = await receiver()
    await subscribe(r.url)
    loop('p1')
    loop('p2')
    for (let i = 0; i < 20; i++) await store.objects.create(draft('document', `D${i}`), 1)
    await waitFor(() => expect(r.got).toHaveLength(20))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(r.got.map((g) => g.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(await store.webhooks.lease('webhook-delivery', 'p3', Date.now(), 1_000)).toBe(false)
    for (const l of loops.splice(0)) await l.close() // each hands the lease back if it has it
    expect(await store.webhooks.lease('webhook-delivery', 'p3', Date.now(), 1_000)).toBe(true)
  })

  it('when a subscription lags, then its events are kept from pruning', async () => {
    const hook = await subscribe('http://127.0.0.1:9/', ['*'])
    await store.objects.create(draft('document', 'A'), 1)
    expect(await store.webhooks.lowestPosition()).toBe(hook.after_seq)
    expect(await store.changes.prune(Date.now() + 1_000, must((await store.webhooks.lowestPosition())))).toBe(0)
    expect(await store.changes.after(hook.after_seq, 10)).toHaveLength(1)
  })

  it('when retention runs, then old events go except those a subscription still needs, and old finished deliveries go', async () => {
    const r = await receiver()
    const done = await subscribe(r.url)
    const l = loop()
    await store.objects.create(draft('document', 'A'), 1)
    await waitFor(async () => expect((await store.webhooks.deliveries(done.id, 10))[0]?.status).toBe('delivered'))
    await l.close()
    const lagging = await subscribe('http://127.0.0.1:9/', ['*'])
    await store.objects.create(draft('document', 'B'), 1)
    const later = Date.now() + 60_000
    const stop = startOutboxRetention(store, { retentionMs: 1_000, everyMs: 60_000, now: () => later }, log)
    await waitFor(async () => expect(await store.webhooks.deliveries(done.id, 10)).toEqual([]))
    stop()
    // the lagging subscription still has event 2 to pass; event 1 is gone
    expect((await store.changes.after(0, 10)).map((e) => e.seq)).toEqual([lagging.after_seq + 1])
  })
})
