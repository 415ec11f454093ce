import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AccessSnapshot, ChangeEvent } from '../../src/core/change-events.js'
import { ChangeFeed, boundaryOfEvents, type FeedMessage } from '../../src/core/change-feed.js'
import type { ChangesPort } from '../../src/core/ports.js'
import { must } from '../support/must.js'

/** An outbox in memory: numbered events, some of them pruned. */
function outbox (count = 0) {
  let events: ChangeEvent[] = []
  let last = 0
  /** `n` events, each with `access` when given (its object's dates as the write left them) */
  const add = (n: number, access?: AccessSnapshot) => {
    for (let i = 0; i < n; i++) {
      last += 1
      events.push({ seq: last, type: 'object.updated', object_id: last, object_type: 'document', at: 0, affects: [last], ...(access ? { access } : {}) })
    }
  }
  add(count)
  const port: ChangesPort = {
    after: async (seq, limit) => events.filter((e) => e.seq > seq).slice(0, limit),
    bounds: async () => ({ first: events[0]?.seq ?? null, last }),
    prune: async (_before, keepAfter) => {
      const n = events.length
      events = events.filter((e) => e.seq > keepAfter)
      return n - events.length
    },
  }
  return { port, add }
}

/** An event's access with the window `dates` */
const dated = (dates: { start_date?: number, end_date?: number } = {}): AccessSnapshot => ({ status: 'on', read_groups: [], write_groups: [], parents: [1], ancestors: [1], ...dates })

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
const seqs = (messages: FeedMessage[]) => messages.flatMap((m) => m.events.map((e) => e.seq))

describe('ChangeFeed', () => {
  afterEach(() => { vi.useRealTimers() })

  it('when started, then it stands at the end of the outbox and tells only what commits after', async () => {
    const box = outbox(3)
    const feed = new ChangeFeed({ storeId: 's1', changes: box.port, now: () => 0, nextBoundary: async () => null })
    await feed.start()
    expect(feed.position).toBe(3)
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(2)
    feed.pull()
    await settle()
    expect(seqs(seen)).toEqual([4, 5])
    expect(seen.at(-1)).toMatchObject({ store_id: 's1', reset: false, clock: false, seq: 5 })
    feed.close()
  })

  it('when a pull finds fewer events than a batch, then it reads the outbox once: the next commit pulls again', async () => {
    const box = outbox()
    const after = vi.spyOn(box.port, 'after')
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => 0, nextBoundary: async () => null })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(3)
    feed.pull()
    await vi.waitFor(() => expect(seqs(seen)).toEqual([1, 2, 3]))
    await settle()
    expect(after).toHaveBeenCalledTimes(1)
    box.add(1)
    feed.pull()
    await vi.waitFor(() => expect(seqs(seen)).toEqual([1, 2, 3, 4]))
    await settle()
    expect(after).toHaveBeenCalledTimes(2)
    feed.close()
  })

  it('when pulls come while one runs, then every event is told once, in order', async () => {
    const box = outbox()
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => 0, nextBoundary: async () => null })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    for (let i = 0; i < 5; i++) {
      box.add(1)
      feed.pull()
    }
    box.add(1200) // more than one batch
    feed.pull()
    // however busy the machine: until every event was told, then nothing more comes
    await vi.waitFor(() => expect(seqs(seen).length).toBeGreaterThanOrEqual(1205))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seqs(seen)).toEqual(Array.from({ length: 1205 }, (_, i) => i + 1))
    expect(Math.max(...seen.map((m) => m.events.length))).toBeLessThanOrEqual(500)
    feed.close()
  })

  it('when a pull finds more than a batch, then the event loop runs between batches, and every event is still told in order', async () => {
    const box = outbox()
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => 0, nextBoundary: async () => null })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(1500) // a large import's events
    feed.pull()
    // an answer waiting on the event loop (the import's own) goes after the first batch, not after the last
    const toldBeforeOtherWork = await new Promise<number>((resolve) => setImmediate(() => resolve(seqs(seen).length)))
    expect(toldBeforeOtherWork).toBe(500)
    await vi.waitFor(() => expect(seqs(seen)).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1)))
    feed.close()
  })

  it('when another process commits, then the poll finds its events without an announcement', async () => {
    const box = outbox()
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => 0, nextBoundary: async () => null, pollMs: 10 })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(2) // no pull() called
    await vi.waitFor(() => expect(seqs(seen)).toEqual([1, 2]))
    feed.close()
  })

  it('when a subscriber resumes from a retained number, then it gets exactly the events after it', async () => {
    const box = outbox(10)
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => 0, nextBoundary: async () => null })
    await feed.start()
    expect(seqs(must((await feed.resume('s', 4))))).toEqual([5, 6, 7, 8, 9, 10])
    expect(await feed.resume('s', 10)).toEqual([])
    expect(await feed.resume('other', 4)).toBeNull() // another store's numbers mean nothing here
    expect(await feed.resume('s', 11)).toBeNull() // from the future
    await box.port.prune(0, 6)
    expect(await feed.resume('s', 5)).toBeNull() // 6 is gone
    expect(seqs(must((await feed.resume('s', 6))))).toEqual([7, 8, 9, 10])
    feed.close()
  })

  it('when a publication-window boundary passes, then a clock message is told without a write', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const boundaries = [1_500, null]
    const feed = new ChangeFeed({ storeId: 's', changes: outbox().port, now: () => Date.now(), nextBoundary: async () => boundaries.shift() ?? null })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    await vi.advanceTimersByTimeAsync(499)
    expect(seen).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(seen).toEqual([{ store_id: 's', reset: false, clock: true, events: [], seq: 0 }])
    await vi.advanceTimersByTimeAsync(10_000)
    expect(seen).toHaveLength(1)
    feed.close()
  })

  it('when its timer fires before the boundary by the clock the rounds read, then the clock message waits for the boundary', async () => {
    vi.useFakeTimers({ now: 1_000 })
    // When the timer is armed, the clock the rounds read is 3 ms ahead of the time the timer counts from
    // (the event loop's cached time): the timer then fires 3 ms before the boundary by that clock.
    let ahead = 0
    let armed = 0
    const now = () => Date.now() + ahead
    const boundary = 1_500
    const nextBoundary = async (at: number) => {
      if (armed++ === 0) {
        ahead = 3
        setTimeout(() => { ahead = 0 }, 0)
      }
      return at < boundary ? boundary : null
    }
    const feed = new ChangeFeed({ storeId: 's', changes: outbox().port, now, nextBoundary })
    await feed.start()
    const toldAt: number[] = []
    feed.subscribe((m) => { if (m.clock) toldAt.push(now()) })
    await vi.advanceTimersByTimeAsync(10_000)
    // told once, and not before the boundary: the round it starts finds the boundary passed
    expect(toldAt).toEqual([boundary])
    expect(armed).toBeGreaterThan(1) // the early timer armed again instead of telling
    feed.close()
  })

  it('when the feed is closed, then pulls and timers stop and subscribers are told to end', async () => {
    vi.useFakeTimers({ now: 0 })
    const box = outbox()
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => Date.now(), nextBoundary: async () => 100 })
    await feed.start()
    const seen: FeedMessage[] = []
    let ended = 0
    feed.subscribe((m) => seen.push(m), () => { ended++ })
    feed.close()
    box.add(1)
    feed.pull()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(seen).toEqual([])
    expect(ended).toBe(1)
  })

  it('when a write\'s events carry their objects\' dates, then the boundary they bring is armed without asking the store, and told when it passes', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const box = outbox()
    const asked: number[] = []
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => Date.now(), nextBoundary: async (at) => { asked.push(at); return null } })
    await feed.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(asked).toEqual([1_000])
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(1, dated({ start_date: 1_800 }))
    box.add(1, dated({ start_date: 500, end_date: 1_299 })) // visible through 1,299: hidden from 1,300
    box.add(1, dated())
    feed.pull()
    await vi.advanceTimersByTimeAsync(0)
    expect(seqs(seen)).toEqual([1, 2, 3])
    expect(asked).toEqual([1_000]) // not asked again
    await vi.advanceTimersByTimeAsync(299)
    expect(seen.filter((m) => m.clock)).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(seen.filter((m) => m.clock)).toHaveLength(1)
    // once it passed the store is asked for the next (the events' later boundary is its to tell now)
    expect(asked).toEqual([1_000, 1_300])
    feed.close()
  })

  it('when an event carries no access (a purged object\'s), then the store is asked for the next boundary', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const box = outbox()
    const asked: number[] = []
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => Date.now(), nextBoundary: async (at) => { asked.push(at); return asked.length === 2 ? 1_400 : null } })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    box.add(1, dated({ start_date: 5_000 }))
    box.add(1)
    feed.pull()
    await vi.advanceTimersByTimeAsync(0)
    expect(asked).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(400)
    expect(seen.filter((m) => m.clock)).toHaveLength(1)
    feed.close()
  })

  it('when events bring a boundary while the store is asked, then the earlier of its answer and theirs is armed', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const box = outbox()
    let answer: (at: number | null) => void = () => {}
    const asked: number[] = []
    const feed = new ChangeFeed({
      storeId: 's', changes: box.port, now: () => Date.now(),
      // at start: a boundary at 1,100; when it has passed, an answer the test gives
      nextBoundary: (at) => { asked.push(at); return asked.length === 1 ? Promise.resolve(1_100) : new Promise((resolve) => { answer = resolve }) },
    })
    await feed.start()
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    await vi.advanceTimersByTimeAsync(100)
    expect(seen.filter((m) => m.clock)).toHaveLength(1)
    expect(asked).toEqual([1_000, 1_100])
    // the store's answer, from a snapshot before this write, comes after the write's events were told
    box.add(1, dated({ start_date: 1_200 }))
    feed.pull()
    await vi.advanceTimersByTimeAsync(0)
    expect(seqs(seen)).toEqual([1])
    answer(3_000)
    await vi.advanceTimersByTimeAsync(99)
    expect(seen.filter((m) => m.clock)).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(seen.filter((m) => m.clock)).toHaveLength(2)
    expect(asked).toEqual([1_000, 1_100, 1_200])
    feed.close()
  })

  it('when the store failed to answer, then the next write\'s drain asks it again instead of trusting its events alone', async () => {
    vi.useFakeTimers({ now: 1_000 })
    const box = outbox()
    const answers: (() => Promise<number | null>)[] = [async () => null, async () => { throw new Error('store down') }, async () => 1_100]
    const errors: unknown[] = []
    const feed = new ChangeFeed({ storeId: 's', changes: box.port, now: () => Date.now(), nextBoundary: () => (answers.shift() ?? (async () => null))(), onError: (e) => errors.push(e) })
    await feed.start()
    await vi.advanceTimersByTimeAsync(0)
    const seen: FeedMessage[] = []
    feed.subscribe((m) => seen.push(m))
    // an event without access: the store is asked, and that answer fails
    box.add(1)
    feed.pull()
    await vi.advanceTimersByTimeAsync(0)
    expect(errors).toHaveLength(1)
    box.add(1, dated())
    feed.pull()
    await vi.advanceTimersByTimeAsync(0)
    expect(answers).toEqual([]) // asked: the boundary at 1,100 is the store's alone to tell
    await vi.advanceTimersByTimeAsync(100)
    expect(seen.filter((m) => m.clock)).toHaveLength(1)
    feed.close()
  })
})

describe('boundaryOfEvents', () => {
  it('answers the next start after now or the instant after the next end, null when none, undefined when an event has no access', () => {
    const event = (access?: AccessSnapshot): ChangeEvent => ({ seq: 1, type: 'object.updated', object_id: 1, object_type: 'document', at: 0, affects: [1], ...(access ? { access } : {}) })
    expect(boundaryOfEvents([event(dated({ start_date: 900 })), event(dated({ start_date: 1_000, end_date: 2_000 }))], 1_000)).toBe(2_001)
    expect(boundaryOfEvents([event(dated({ start_date: 1_001 })), event(dated({ end_date: 1_500 }))], 1_000)).toBe(1_001)
    expect(boundaryOfEvents([event(dated({ end_date: 1_000 }))], 1_000)).toBe(1_001)
    expect(boundaryOfEvents([event(dated()), event(dated({ end_date: 998 }))], 1_000)).toBeNull()
    expect(boundaryOfEvents([event(dated({ start_date: 1_001 })), event()], 1_000)).toBeUndefined()
  })
})
