import { afterEach, describe, expect, it } from 'vitest'
import type * as grpc from '@grpc/grpc-js'
import type { v1 } from '@content/protos'
import { NOW } from './site.fixture.js'
import { importFixtures, startHarness, type Harness } from './harness.js'
import { must } from '../support/must.js'

type Raw = { WatchChanges(req: object): grpc.ClientReadableStream<v1.Change__Output> }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let h: Harness | undefined
afterEach(async () => { await h?.close() })

function watch (harness: Harness, request: object) {
  const stream = (harness.objects.raw as unknown as Raw).WatchChanges(request)
  const seen: { at: number, change: v1.Change__Output }[] = []
  let failed: Error | undefined
  stream.on('data', (change: v1.Change__Output) => seen.push({ at: Date.now(), change }))
  stream.on('error', (err: Error) => { failed = err })
  return { stream, seen, failed: () => failed }
}

describe('WatchChanges heartbeat', () => {
  it('when a heartbeat is asked, then a quiet feed still sends a message without events at the stream\'s position at least that often', async () => {
    h = await startHarness({ now: NOW })
    const w = watch(h, { store_id: h.store.storeId, after_seq: 0, heartbeat_ms: 200 })
    await sleep(1_100)
    expect(w.seen.length).toBeGreaterThanOrEqual(4)
    for (const { change } of w.seen) expect(change).toMatchObject({ reset: false, clock: false, events: [], seq: 0 })
    const gaps = w.seen.slice(1).map((s, i) => s.at - must(w.seen[i]).at)
    expect(Math.max(...gaps)).toBeLessThan(450)
    // after a write, heartbeats carry the position its events reached
    await importFixtures(h, { objects: [{ ref: 'a', object_type: 'document', title: 'A' }] })
    await sleep(500)
    const last = must(w.seen.at(-1)).change
    expect(last).toMatchObject({ events: [], seq: h.feed.position })
    expect(h.feed.position).toBeGreaterThan(0)
    expect(w.failed()).toBeUndefined()
    w.stream.cancel()
  })

  it('when no heartbeat is asked, then a quiet feed sends only its first message', async () => {
    h = await startHarness({ now: NOW })
    const w = watch(h, { store_id: h.store.storeId, after_seq: 0 })
    await sleep(600)
    expect(w.seen).toHaveLength(1)
    w.stream.cancel()
  })
})

describe('WatchChanges streams', () => {
  it('when several streams follow the feed, then each gets every event of a write, in order, the same as the others', async () => {
    h = await startHarness({ now: NOW })
    const harness = h
    const streams = [0, 1, 2].map(() => watch(harness, { store_id: harness.store.storeId, after_seq: 0 }))
    await sleep(200)
    const refs = await importFixtures(h, {
      objects: Array.from({ length: 600 }, (_, i) => ({ ref: `d${i}`, object_type: 'document', title: `D${i}`, ...(i > 0 ? { relations: { seealso: [{ related: `d${i - 1}` }] } } : {}) })),
    })
    // each object created and related to the one before: two events per object but the first (the feed's batches are 500)
    const expected = 600 + 599
    const events = () => streams.map((s) => s.seen.flatMap(({ change }) => change.events))
    for (let waited = 0; events().some((e) => e.length < expected) && waited < 5_000; waited += 20) await sleep(20)
    await sleep(100) // nothing more comes
    const told = events()
    const first = must(told[0])
    expect(first.length).toBe(expected)
    expect(first.map((e) => e.seq)).toEqual(first.map((_, i) => must(first[0]).seq + i))
    expect(first.find((e) => e.type === 'relation.created')).toMatchObject({ object_id: refs.d1, related_id: refs.d0, relation: 'seealso', object_type: 'document', related_type: 'document' })
    for (const other of told.slice(1)) expect(other).toEqual(first)
    for (const s of streams) {
      expect(s.failed()).toBeUndefined()
      s.stream.cancel()
    }
  })
})
