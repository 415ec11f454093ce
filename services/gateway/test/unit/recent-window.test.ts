import { describe, expect, it } from 'vitest'
import { RecentWindow } from '../../src/live/recent-window.js'

describe('RecentWindow', () => {
  it('when items are pushed past the limit, then it holds the newest ones in order and answers each one it dropped', () => {
    for (const limit of [0, 1, 2, 7]) {
      const w = new RecentWindow<number>(limit)
      const dropped: number[] = []
      for (let i = 1; i <= 40; i++) {
        const d = w.push(i)
        if (d !== undefined) dropped.push(d)
        const kept = Math.min(i, limit)
        expect([...w]).toEqual(Array.from({ length: kept }, (_, k) => i - kept + 1 + k))
        expect(w.size).toBe(kept)
      }
      expect(dropped).toEqual(Array.from({ length: 40 - limit }, (_, k) => k + 1))
    }
  })

  it('when cleared, then it holds nothing and fills again from empty', () => {
    const w = new RecentWindow<number>(3)
    for (let i = 0; i < 10; i++) w.push(i)
    w.clear()
    expect([...w]).toEqual([])
    expect(w.push(1)).toBeUndefined()
    expect([...w]).toEqual([1])
  })
})
