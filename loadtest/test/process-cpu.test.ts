/** The ceiling's CPU time, as the bench reads it from /proc. */
import { describe, expect, it } from 'vitest'
import { processCpuSeconds } from '../autocannon/process-cpu.mjs'

describe('processCpuSeconds', () => {
  it('when a process spends CPU, then /proc tells it as process.cpuUsage does, in seconds', () => {
    const before = processCpuSeconds(process.pid)
    const usage = process.cpuUsage()
    // 200 ms of CPU, however busy the machine (a bound on the wall time all the same)
    const until = performance.now() + 10_000
    let spent = process.cpuUsage(usage)
    while (spent.user + spent.system < 200_000 && performance.now() < until) spent = process.cpuUsage(usage)
    const told = processCpuSeconds(process.pid) - before
    // /proc counts in ticks of 10 ms: within a few of what Node itself measured
    expect(Math.abs(told - (spent.user + spent.system) / 1e6)).toBeLessThan(0.05)
    expect(told).toBeGreaterThan(0.1)
  })

  it('when there is no such process, then it throws rather than answer a number', () => {
    expect(() => processCpuSeconds(2 ** 30)).toThrow()
  })
})
