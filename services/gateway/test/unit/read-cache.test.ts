import { describe, expect, it } from 'vitest'
import { ReadCache, readCacheKey } from '../../src/http/read-cache.js'

const entry = { body: Buffer.from('{"a":1}'), etag: '"x"' }

type Msg = { store_id?: string, reset?: boolean, clock?: boolean, seq: number, affects?: number[][] }
const msg = (m: Msg) => ({
  store_id: m.store_id ?? 's', reset: m.reset ?? false, clock: m.clock ?? false, seq: m.seq,
  events: (m.affects ?? []).map((affects) => ({ affects })),
})

/** A cache whose feed is live at `seq` 1 of store s. */
function live (max = 10): ReadCache {
  const c = new ReadCache(max)
  c.observe(msg({ reset: true, seq: 1 }))
  return c
}

describe('ReadCache', () => {
  it('when the feed has not spoken yet, then nothing is stored or served', () => {
    const c = new ReadCache(10)
    c.set('k', entry, [1], c.begin())
    expect(c.get('k')).toBeUndefined()
  })

  it('when an event affects an object an answer depends on, then that answer goes and the others stay', () => {
    const c = live()
    c.set('a', entry, [3, 4], c.begin())
    c.set('b', entry, [5], c.begin())
    c.set('c', entry, [4, 6], c.begin())
    c.observe(msg({ seq: 2, affects: [[7, 8]] }))
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([entry, entry, entry])
    c.observe(msg({ seq: 3, affects: [[1], [4]] }))
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, entry, undefined])
    expect(c.size).toBe(1)
  })

  it('when the store changes, the feed resets or a window boundary passes, then everything is dropped', () => {
    for (const m of [{ store_id: 'other', seq: 1 }, { reset: true, seq: 5 }, { clock: true, seq: 1 }]) {
      const c = live()
      c.set('k', entry, [3], c.begin())
      c.observe(msg(m))
      expect(c.get('k')).toBeUndefined()
      c.set('k', entry, [3], c.begin())
      expect(c.get('k')).toEqual(entry)
    }
  })

  it('when an answer was computed before an event that affected it, then it is not stored after it; unaffected ones are', () => {
    const c = live()
    const begun = c.begin()
    c.observe(msg({ seq: 2, affects: [[3]] }))
    c.set('stale', entry, [2, 3], begun)
    c.set('fine', entry, [2, 9], begun)
    expect(c.get('stale')).toBeUndefined()
    expect(c.get('fine')).toEqual(entry)
    c.set('stale', entry, [2, 3], c.begin())
    expect(c.get('stale')).toEqual(entry)
  })

  it('when a local write is acknowledged at a number the feed has not reached, then nothing is served or stored until it has', () => {
    const c = live()
    c.set('k', entry, [3], c.begin())
    c.written(4)
    expect(c.get('k')).toBeUndefined()
    c.set('other', entry, [9], c.begin())
    c.observe(msg({ seq: 3, affects: [[8]] }))
    expect(c.get('k')).toBeUndefined()
    c.observe(msg({ seq: 4, affects: [[3]] }))
    expect(c.get('k')).toBeUndefined() // dropped by the write's own event
    c.set('k', entry, [3], c.begin())
    expect(c.get('k')).toEqual(entry)
    expect(c.get('other')).toBeUndefined() // was refused while waiting
  })

  it('when a read waits behind a local write, then it is released by the event that reaches the write, by the feed going down, or by its bound', async () => {
    const c = live()
    expect(c.caughtUp()).toBeNull()
    c.written(3)
    const order: string[] = []
    const early = c.caughtUp(10_000)?.then(() => order.push('early'))
    c.observe(msg({ seq: 2 }))
    await Promise.resolve()
    expect(order).toEqual([])
    c.observe(msg({ seq: 3 }))
    await early
    expect(order).toEqual(['early'])
    expect(c.caughtUp()).toBeNull()
    c.written(4)
    const downed = c.caughtUp(10_000)
    c.down()
    await downed
    expect(c.caughtUp()).toBeNull() // down: nothing to wait for, the read bypasses
    c.observe(msg({ seq: 4 }))
    c.set('k', entry, [3], c.begin())
    expect(c.get('k')).toEqual(entry)
    c.written(5)
    const started = performance.now()
    await c.caughtUp(30)
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
    expect(c.get('k')).toBeUndefined() // still behind after the bound: the read goes to the backend
  })

  it('when the feed goes down, then the cache is bypassed; resumed, entries the missed events spared are served again', () => {
    const c = live()
    c.set('a', entry, [3], c.begin())
    c.set('b', entry, [4], c.begin())
    c.down()
    expect(c.isLive).toBe(false)
    expect(c.get('a')).toBeUndefined()
    c.set('c', entry, [5], c.begin())
    expect(c.position).toEqual({ storeId: 's', seq: 1 })
    c.observe(msg({ seq: 2, affects: [[3]] }))
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, entry, undefined])
  })

  it('when a write fails in transit, then everything goes and reads begun before are not stored', () => {
    const c = live()
    c.set('k', entry, [3], c.begin())
    const begun = c.begin()
    c.invalidate()
    expect(c.get('k')).toBeUndefined()
    c.set('k', entry, [3], begun)
    expect(c.get('k')).toBeUndefined()
  })

  it('when entries are evicted, then their index goes with them', () => {
    const c = live(2)
    c.set('a', entry, [1], c.begin())
    c.set('b', entry, [2], c.begin())
    c.set('c', entry, [3], c.begin())
    expect(c.get('a')).toBeUndefined()
    c.set('a', entry, [1], c.begin())
    c.observe(msg({ seq: 2, affects: [[2]] }))
    expect(c.size).toBe(2)
    expect([c.get('a'), c.get('c')]).toEqual([entry, entry])
  })
})

describe('readCacheKey', () => {
  const q = (s: string) => new URLSearchParams(s)
  it('ignores access_token and query order', () => {
    expect(readCacheKey('http://h/objects', q('b=2&a=1&access_token=t'), [])).toBe(readCacheKey('http://h/objects', q('a=1&b=2'), []))
  })
  it('sorts groups; different group sets differ; anonymous differs from any group', () => {
    expect(readCacheKey('u', q(''), ['b', 'a'])).toBe(readCacheKey('u', q(''), ['a', 'b']))
    expect(readCacheKey('u', q(''), ['a'])).not.toBe(readCacheKey('u', q(''), ['a', 'b']))
    expect(readCacheKey('u', q(''), [])).not.toBe(readCacheKey('u', q(''), ['a']))
  })
  it('different origins or paths differ', () => {
    expect(readCacheKey('http://a/objects/1', q(''), [])).not.toBe(readCacheKey('http://b/objects/1', q(''), []))
  })
})
