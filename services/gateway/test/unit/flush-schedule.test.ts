import { describe, expect, it } from 'vitest'
import { LiveFlushSchedule } from '../../src/live/flush-schedule.js'

const WINDOW = 50
/** A schedule that has seen a message come 2 ms after its commit, and flushed it: the floor is 2 ms, the last flush at 1,000. */
function settled (): LiveFlushSchedule {
  const s = new LiveFlushSchedule(WINDOW)
  expect(s.arrived(948, 950)).toBe(WINDOW)
  s.flushed(1_000)
  return s
}

describe('LiveFlushSchedule', () => {
  it('when a message comes as soon as they usually do, then its flush is a window away', () => {
    const s = settled()
    expect(s.arrived(1_098, 1_100)).toBe(WINDOW)
  })

  it('when a message comes later after its commit than they usually do, then its flush comes sooner by as much, at once when it is a window late', () => {
    const s = settled()
    expect(s.arrived(1_070, 1_100)).toBe(WINDOW - 28)
    s.flushed(1_122)
    expect(s.arrived(1_100, 1_200)).toBe(0)
  })

  it('when a window has not passed since the last flush, then the next waits for it, however late its events', () => {
    const s = settled()
    expect(s.arrived(900, 1_010)).toBe(40)
  })

  it('when a flush is armed sooner, then a later message leaves with it; when a later one is due sooner, then the flush moves to it', () => {
    const s = settled()
    expect(s.arrived(1_098, 1_100)).toBe(WINDOW)
    expect(s.arrived(1_118, 1_120)).toBeNull()
    expect(s.arrived(1_080, 1_130)).toBe(2)
  })

  it('when the objects service\'s clock is far ahead or behind, then the windows stay whole: the least delay seen is the offset', () => {
    for (const offset of [-60_000, 60_000]) {
      const s = new LiveFlushSchedule(WINDOW)
      let now = 1_764_900_000_000
      for (let i = 0; i < 20; i++) {
        // commits a window apart, each reaching the gateway 2 to 5 ms later
        expect(s.arrived(now - 2 - (i % 4) + offset, now)).toBe(WINDOW - (i % 4))
        now += WINDOW
        s.flushed(now)
        now += 10
      }
    }
  })

  it('when a commit time is not known, then the window counts from arrival', () => {
    const s = settled()
    expect(s.arrived(0, 1_100)).toBe(WINDOW)
  })

  it('when the least delay was seen two spans ago, then it is forgotten: a slower path is the new usual', () => {
    const s = new LiveFlushSchedule(WINDOW, 1_000)
    expect(s.arrived(98, 100)).toBe(WINDOW)
    s.flushed(150)
    // the path now takes 20 ms: early on, those messages count as late
    expect(s.arrived(480, 500)).toBe(WINDOW - 18)
    s.flushed(532)
    expect(s.arrived(1_180, 1_200)).toBe(WINDOW - 18)
    s.flushed(1_232)
    // more than two spans after the 2 ms one, 20 ms is the floor
    expect(s.arrived(3_380, 3_400)).toBe(WINDOW)
  })

  it('when it is cancelled, then the next message arms a flush again', () => {
    const s = settled()
    expect(s.arrived(1_098, 1_100)).toBe(WINDOW)
    s.cancelled()
    expect(s.arrived(1_108, 1_110)).toBe(WINDOW)
  })
})
