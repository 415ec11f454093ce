/** The bench's memory figures and its leak check's rule. */
import { describe, expect, it } from 'vitest'
import { LEAK_BOUND, leaks, memoryOf } from '../autocannon/memory.mjs'

const MiB = 1024 * 1024
const at = (rss: number, heap: number) => ({ gateway: { rss: rss * MiB, heap: heap * MiB } })

describe('bench memory', () => {
  it('reads RSS and heap in use from a service\'s exposition text', () => {
    const text = '# HELP x\nprocess_resident_memory_bytes 123456789\nnodejs_heap_size_used_bytes 4567\nnodejs_heap_size_used_bytes_other 1\n'
    expect(memoryOf(text)).toEqual({ rss: 123456789, heap: 4567 })
    expect(memoryOf('')).toEqual({ rss: Number.NaN, heap: Number.NaN })
  })

  it('when memory settles after the first round, then nothing leaks, whatever the first round filled', () => {
    // a step after the first round that then stays flat is a cache filling
    expect(leaks([at(100, 40), at(180, 70), at(181, 69)])).toEqual([])
    // growth within the bound
    expect(leaks([at(100, 40), at(120, 50), at(125, 55)])).toEqual([])
  })

  it('when a measure keeps growing past the bound, then that service leaks, and says which measure and how much', () => {
    const found = leaks([at(100, 40), at(150, 41), at(200, 40)])
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^gateway rss grew 100 MiB after the first round \(bound 32 MiB\), in every round$/)
    expect(leaks([at(100, 40), at(110, 60), at(120, 90)])[0]).toMatch(/^gateway heap grew 50 MiB/)
    // the bound is the larger of a fixed size and a share of the first round's
    expect(LEAK_BOUND.bytes).toBe(32 * MiB)
    expect(leaks([at(1000, 40), at(1100, 40), at(1200, 40)])).toEqual([])
    expect(leaks([at(1000, 40), at(1200, 40), at(1300, 40)])).toHaveLength(1)
  })

  it('when a service stops reporting, or fewer than three rounds ran, then the check says so', () => {
    expect(leaks([at(100, 40), at(100, 40), { gateway: { rss: Number.NaN, heap: 40 * MiB } }])).toEqual(['gateway rss: not reported'])
    expect(() => leaks([at(100, 40), at(100, 40)])).toThrow(/three rounds/)
  })
})
