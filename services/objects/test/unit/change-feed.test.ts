import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChangeFeed, type Change } from '../../src/core/change-feed.js'

describe('ChangeFeed', () => {
  afterEach(() => { vi.useRealTimers() })

  it('when a write commits, then subscribers get the next generation of the same store', () => {
    const feed = new ChangeFeed({ storeId: 's1', now: () => 0, nextBoundary: async () => null })
    const seen: Change[] = []
    feed.subscribe((c) => seen.push(c))
    expect(feed.current()).toEqual({ store_id: 's1', generation: 0 })
    feed.bump()
    feed.bump()
    expect(seen).toEqual([{ store_id: 's1', generation: 1 }, { store_id: 's1', generation: 2 }])
    feed.close()
  })

  it('when a publication-window boundary passes, then the generation rises without a write', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const boundaries = [1_500, null]
    const feed = new ChangeFeed({ storeId: 's', now: () => Date.now(), nextBoundary: async () => boundaries.shift() ?? null })
    await feed.arm()
    await vi.advanceTimersByTimeAsync(499)
    expect(feed.current().generation).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(feed.current().generation).toBe(1)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(feed.current().generation).toBe(1)
    feed.close()
  })

  it('when the feed is closed, then bumps and timers stop', async () => {
    vi.useFakeTimers({ now: 0 })
    const feed = new ChangeFeed({ storeId: 's', now: () => Date.now(), nextBoundary: async () => 100 })
    await feed.arm()
    feed.close()
    feed.bump()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(feed.current().generation).toBe(0)
  })
})
