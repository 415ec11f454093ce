import { describe, expect, it, vi } from 'vitest'
import { CallCoalescer, type CoalescerTransport, type Outcome } from '../../src/calls/call-coalescer.js'
import { leavingClient } from '../support/client-gone.js'

const DEADLINE = new Error('deadline exceeded')
const CANCELLED = new Error('cancelled')

/** A transport that records what it was sent and answers when told. */
function transport () {
  const batches: { queries: string[], deadline: number, signal: AbortSignal, answer: (o: Outcome<string>[]) => void, fail: (e: unknown) => void }[] = []
  const alone: string[] = []
  const t: CoalescerTransport<string, string> = {
    one: async (q) => { alone.push(q); return `alone:${q}` },
    many: (queries, deadline, signal) => new Promise((answer, fail) => { batches.push({ queries, deadline, signal, answer, fail }) }),
  }
  return { t, batches, alone }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))
const options = { deadlineExceeded: () => DEADLINE, cancelled: () => CANCELLED }

describe('CallCoalescer', () => {
  it('when reads arrive in one turn, then they leave as one batch whose deadline is the latest of theirs', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, options)
    const now = Date.now()
    const a = c.submit('a', now + 5_000)
    const b = c.submit('b', now + 5_001)
    expect(batches).toHaveLength(0) // nothing leaves before the end of the turn
    await turn()
    expect(batches.map((x) => [x.queries, x.deadline])).toEqual([[['a', 'b'], now + 5_001]])
    must(batches[0]).answer([{ ok: true, value: 'A' }, { ok: true, value: 'B' }])
    expect(await Promise.all([a, b])).toEqual(['A', 'B'])
    // the next turn's reads are the next batch
    const d = c.submit('d', now + 5_000)
    const e = c.submit('e', now + 5_000)
    await turn()
    expect(batches.map((x) => x.queries)).toEqual([['a', 'b'], ['d', 'e']])
    must(batches[1]).answer([{ ok: true, value: 'D' }, { ok: true, value: 'E' }])
    await Promise.all([d, e])
  })

  it('when a read is alone in its turn, then it travels as its own call and waits for no one', async () => {
    const { t, batches, alone } = transport()
    const c = new CallCoalescer(t, options)
    await expect(c.submit('x', Date.now() + 5_000)).resolves.toBe('alone:x')
    expect([alone, batches.length]).toEqual([['x'], 0])
  })

  it('when one read of a batch fails, then only that read fails', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, options)
    const refused = new Error('protected')
    const a = c.submit('a', Date.now() + 5_000)
    const b = c.submit('b', Date.now() + 5_000)
    await turn()
    must(batches[0]).answer([{ ok: true, value: 'A' }, { ok: false, error: refused }])
    await expect(a).resolves.toBe('A')
    await expect(b).rejects.toBe(refused)
  })

  it('when the batch call itself fails, then every read fails with its error', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, options)
    const down = new Error('unavailable')
    const reads = [c.submit('a', Date.now() + 5_000), c.submit('b', Date.now() + 5_000)]
    await turn()
    must(batches[0]).fail(down)
    for (const r of reads) await expect(r).rejects.toBe(down)
  })

  it('when a read\'s own deadline passes before the batch answers, then it fails at its deadline and the others wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const { t, batches } = transport()
      const c = new CallCoalescer(t, { ...options, schedule: (f) => queueMicrotask(f) })
      const now = Date.now()
      const short = c.submit('short', now + 100)
      const long = c.submit('long', now + 5_000)
      await Promise.resolve()
      expect(must(batches[0]).deadline).toBe(now + 5_000)
      const shortFailed = expect(short).rejects.toBe(DEADLINE)
      await vi.advanceTimersByTimeAsync(101)
      await shortFailed
      must(batches[0]).answer([{ ok: true, value: 'S' }, { ok: true, value: 'L' }])
      await expect(long).resolves.toBe('L')
    } finally {
      vi.useRealTimers()
    }
  })

  it('when a read\'s answer arrives after its deadline, then it fails as its call would have', async () => {
    let clock = 1_000
    const { t, batches } = transport()
    const c = new CallCoalescer(t, { ...options, now: () => clock })
    const a = c.submit('a', 2_000)
    const b = c.submit('b', 2_000)
    await turn()
    clock = 2_001
    must(batches[0]).answer([{ ok: true, value: 'A' }, { ok: true, value: 'B' }])
    await expect(a).rejects.toBe(DEADLINE)
    await expect(b).rejects.toBe(DEADLINE)
  })

  it('when a client goes away, then its read leaves the batch, and a batch all of whose clients left is cancelled', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, options)
    const gone = leavingClient()
    const a = c.submit('a', Date.now() + 5_000, gone)
    const b = c.submit('b', Date.now() + 5_000)
    const d = c.submit('d', Date.now() + 5_000)
    gone.leave()
    await expect(a).rejects.toBe(CANCELLED)
    await turn()
    expect(must(batches[0]).queries).toEqual(['b', 'd']) // never sent
    must(batches[0]).answer([{ ok: true, value: 'B' }, { ok: true, value: 'D' }])
    await Promise.all([b, d])

    const left = [leavingClient(), leavingClient()]
    const reads = left.map((g, i) => c.submit(`q${i}`, Date.now() + 5_000, g))
    await turn()
    const batch = must(batches[1])
    expect(batch.signal.aborted).toBe(false)
    must(left[0]).leave()
    expect(batch.signal.aborted).toBe(false)
    must(left[1]).leave()
    expect(batch.signal.aborted).toBe(true)
    for (const r of reads) await expect(r).rejects.toBe(CANCELLED)
  })

  it('when reads of different groups arrive in one turn, then each group leaves as its own batch', async () => {
    const { t, batches, alone } = transport()
    const c = new CallCoalescer(t, { ...options, groupOf: (q) => q[0] ?? '' })
    const reads = ['o1', 'l1', 'o2', 'l2', 'x1'].map((q) => c.submit(q, Date.now() + 5_000))
    await turn()
    expect(batches.map((b) => b.queries)).toEqual([['o1', 'o2'], ['l1', 'l2']])
    expect(alone).toEqual(['x1'])
    for (const b of batches) b.answer(b.queries.map((q) => ({ ok: true, value: q })))
    expect(await Promise.all(reads)).toEqual(['o1', 'l1', 'o2', 'l2', 'alone:x1'])
  })

  it('when more reads arrive than a batch holds, then they leave as several batches', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, { ...options, maxBatch: 2 })
    const reads = ['a', 'b', 'c', 'd', 'e'].map((q) => c.submit(q, Date.now() + 5_000))
    await turn()
    expect(batches.map((b) => b.queries)).toEqual([['a', 'b'], ['c', 'd']])
    for (const b of batches) b.answer(b.queries.map((q) => ({ ok: true, value: q })))
    expect(await Promise.all(reads)).toEqual(['a', 'b', 'c', 'd', 'alone:e'])
  })

  it('when each group has its own bound, then each group leaves in batches of its own size', async () => {
    const { t, batches } = transport()
    const c = new CallCoalescer(t, { ...options, groupOf: (q: string) => q[0] as string, maxBatch: (group) => (group === 'l' ? 2 : 128) })
    const reads = ['l1', 'o1', 'l2', 'o2', 'l3', 'o3', 'l4'].map((q) => c.submit(q, Date.now() + 5_000))
    await turn()
    expect(batches.map((b) => b.queries)).toEqual([['l1', 'l2'], ['l3', 'l4'], ['o1', 'o2', 'o3']])
    for (const b of batches) b.answer(b.queries.map((q) => ({ ok: true, value: q })))
    expect(await Promise.all(reads)).toEqual(['l1', 'o1', 'l2', 'o2', 'l3', 'o3', 'l4'])
  })
})

function must<T> (value: T | undefined): T {
  if (value === undefined) throw new Error('missing')
  return value
}
