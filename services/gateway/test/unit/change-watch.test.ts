import { EventEmitter } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { v1 } from '@content/protos'
import { metricsRegistry } from '@content/platform'
import { watchChanges } from '../../src/http/change-watch.js'
import { ReadCache } from '../../src/http/read-cache.js'
import { must } from '../support/must.js'

/** One WatchChanges call of the fake client: the test pushes messages, fails or ends it. */
class FakeStream extends EventEmitter {
  cancelled = false
  constructor (readonly request: { store_id: string, after_seq: number, heartbeat_ms: number }) { super() }
  push (m: { reset?: boolean, seq: number, affects?: number[][] }): void {
    this.emit('data', { store_id: 's', reset: m.reset ?? false, clock: false, seq: m.seq, events: (m.affects ?? []).map((affects) => ({ affects })) })
  }
  fail (details = 'Connection dropped'): void { this.emit('error', Object.assign(new Error(`14 UNAVAILABLE: ${details}`), { code: 14 })) }
  cancel (): void { this.cancelled = true }
}

function fakeClient () {
  const streams: FakeStream[] = []
  const raw = { WatchChanges: (request: FakeStream['request']) => { const s = new FakeStream(request); streams.push(s); return s } }
  return { raw: raw as unknown as v1.ObjectServiceClient, streams, last: () => must(streams.at(-1)) }
}

const quiet = { warn: () => {}, info: () => {}, debug: () => {} }
const entry = { body: Buffer.from('{}'), etag: '"e"' }

async function sample (name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await must(metricsRegistry.getSingleMetric(name)).get()
  return metric.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0)
}

const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
  vi.useRealTimers()
})

/** A cache following a fake feed at seq 10, holding answers that depend on objects 1 and 2. */
function following (options: Parameters<typeof watchChanges>[3] = {}) {
  const client = fakeClient()
  const cache = new ReadCache(100)
  const watcher = watchChanges(client.raw, cache, quiet, { minBackoffMs: 10, maxBackoffMs: 40, resumeGraceMs: 1_000, ...options })
  stops.push(() => watcher.stop())
  client.last().push({ reset: true, seq: 10 })
  cache.set('one', entry, [1], cache.begin())
  cache.set('two', entry, [2], cache.begin())
  return { client, cache }
}

describe('watchChanges: resuming the change feed', () => {
  it('asks for a heartbeat, and starts where the cache stands', () => {
    const { client } = following({ heartbeatMs: 2_000 })
    expect(client.streams[0]?.request).toMatchObject({ store_id: '', after_seq: 0, heartbeat_ms: 2_000 })
  })

  it('when a live stream drops and the resume replays the missed events, then the cache is never bypassed and the replay drops what it affects', async () => {
    vi.useFakeTimers({ now: 0 })
    const { client, cache } = following()
    const replayedBefore = await sample('content_change_feed_resumes_total', { outcome: 'replayed' })
    const bypassedBefore = await sample('content_read_cache_bypassed_total', { reason: 'feed_down' })
    vi.advanceTimersByTime(5_000) // a steady stream
    client.last().fail()
    // the stream is gone, the replay not yet here: the cache still serves
    expect(cache.isLive).toBe(true)
    expect(cache.get('one')).toEqual(entry)
    vi.advanceTimersByTime(0)
    expect(client.streams).toHaveLength(2)
    expect(client.last().request).toMatchObject({ store_id: 's', after_seq: 10 })
    client.last().push({ seq: 12, affects: [[1]] }) // the replay of what was missed
    expect(cache.get('one')).toBeUndefined()
    expect(cache.get('two')).toEqual(entry)
    vi.advanceTimersByTime(5_000) // the grace has passed: nothing bypasses any more
    expect(cache.isLive).toBe(true)
    expect(cache.get('two')).toEqual(entry)
    expect(await sample('content_change_feed_resumes_total', { outcome: 'replayed' }) - replayedBefore).toBe(1)
    expect(await sample('content_read_cache_bypassed_total', { reason: 'feed_down' }) - bypassedBefore).toBe(0)
  })

  it('when the resume fails before it replays (the service is gone), then reads bypass the cache at once, and entries survive until it is back', async () => {
    vi.useFakeTimers({ now: 0 })
    const { client, cache } = following()
    const bypassedBefore = await sample('content_read_cache_bypassed_total', { reason: 'feed_down' })
    vi.advanceTimersByTime(5_000)
    client.last().fail()
    vi.advanceTimersByTime(0)
    client.last().fail('No connection established')
    expect(cache.isLive).toBe(false)
    expect(cache.get('two')).toBeUndefined()
    expect(await sample('content_read_cache_bypassed_total', { reason: 'feed_down' }) - bypassedBefore).toBe(1)
    const afterBypassBefore = await sample('content_change_feed_resumes_total', { outcome: 'after_bypass' })
    vi.advanceTimersByTime(10) // the backoff
    expect(client.streams).toHaveLength(3)
    client.last().push({ seq: 10 })
    expect(cache.get('two')).toEqual(entry)
    expect(await sample('content_change_feed_resumes_total', { outcome: 'after_bypass' }) - afterBypassBefore).toBe(1)
  })

  it('when the resume does not answer within the grace, then reads bypass the cache until it does', () => {
    vi.useFakeTimers({ now: 0 })
    const { client, cache } = following({ resumeGraceMs: 300 })
    vi.advanceTimersByTime(5_000)
    client.last().fail()
    vi.advanceTimersByTime(299)
    expect(cache.get('two')).toEqual(entry)
    vi.advanceTimersByTime(1)
    expect(cache.get('two')).toBeUndefined()
    client.last().push({ seq: 10 })
    expect(cache.get('two')).toEqual(entry)
  })

  it('when the missed events cannot be replayed (reset), then the cache is emptied, not served', async () => {
    vi.useFakeTimers({ now: 0 })
    const { client, cache } = following()
    const before = await sample('content_change_feed_resumes_total', { outcome: 'started_over' })
    vi.advanceTimersByTime(5_000)
    client.last().fail()
    vi.advanceTimersByTime(0)
    client.last().push({ reset: true, seq: 40 })
    expect(cache.get('one')).toBeUndefined()
    expect(cache.get('two')).toBeUndefined()
    expect(cache.size).toBe(0)
    expect(await sample('content_change_feed_resumes_total', { outcome: 'started_over' }) - before).toBe(1)
  })

  it('when a stream stays silent past the limit (no heartbeat), then it is cancelled, counted and resumed', async () => {
    vi.useFakeTimers({ now: 0 })
    const { client, cache } = following({ heartbeatMs: 100, silenceMs: 300 })
    const before = await sample('content_change_feed_resets_total', { cause: 'silent' })
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(100)
      client.last().push({ seq: 10 }) // heartbeats keep it
    }
    expect(client.streams).toHaveLength(1)
    vi.advanceTimersByTime(300)
    expect(must(client.streams[0]).cancelled).toBe(true)
    expect(await sample('content_change_feed_resets_total', { cause: 'silent' }) - before).toBe(1)
    vi.advanceTimersByTime(1) // a timer set to 0 ms inside another runs 1 ms later under fake timers
    expect(client.streams).toHaveLength(2)
    client.last().push({ seq: 10 })
    expect(cache.get('two')).toEqual(entry)
  })

  it('a stream that keeps dropping right after it starts is resumed with backoff, not in a tight loop', () => {
    vi.useFakeTimers({ now: 0 })
    const { client } = following()
    client.last().fail() // lived 0 ms
    vi.advanceTimersByTime(0)
    expect(client.streams).toHaveLength(1)
    vi.advanceTimersByTime(10)
    expect(client.streams).toHaveLength(2)
  })
})
