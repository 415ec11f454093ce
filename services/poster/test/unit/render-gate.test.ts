import { describe, expect, it } from 'vitest'
import { RenderGate } from '../../src/core/render-gate.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A task that runs until released, recording how many run at once. */
function tasks () {
  let running = 0
  let peak = 0
  const releases: (() => void)[] = []
  const task = <T>(value: T) => async () => {
    running++
    peak = Math.max(peak, running)
    await new Promise<void>((resolve) => releases.push(resolve))
    running--
    return value
  }
  const releaseAll = async () => {
    while (releases.length > 0 || running > 0) {
      for (const r of releases.splice(0)) r()
      await sleep(1)
    }
  }
  return { task, releaseAll, peak: () => peak, running: () => running }
}

describe('RenderGate', () => {
  it('when more tasks come than slots, then at most `concurrency` run at once and the rest wait their turn', async () => {
    const gate = new RenderGate({ concurrency: 2, queue: 10, maxWaitMs: 5_000 })
    const t = tasks()
    const results = Array.from({ length: 6 }, (_, i) => gate.run(`k${i}`, t.task(i)))
    await sleep(5)
    expect(t.running()).toBe(2)
    expect(gate.load()).toEqual({ active: 2, waiting: 4 })
    await t.releaseAll()
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 5])
    expect(t.peak()).toBe(2)
    expect(gate.load()).toEqual({ active: 0, waiting: 0 })
    expect(gate.counters).toEqual({ started: 6, joined: 0, busy: 0 })
  })

  it('when every slot and the queue are taken, then one more is refused at once with THUMBNAIL_BUSY and retry_after', async () => {
    const gate = new RenderGate({ concurrency: 1, queue: 1, maxWaitMs: 5_000, retryAfterSeconds: 3 })
    const t = tasks()
    const running = [gate.run('a', t.task('a')), gate.run('b', t.task('b'))]
    await expect(gate.run('c', t.task('c'))).rejects.toMatchObject({ code: 'UNAVAILABLE', reason: 'THUMBNAIL_BUSY', details: { retry_after: 3 } })
    await expect(gate.run(null, t.task('d'), 'UPLOAD_BUSY')).rejects.toMatchObject({ reason: 'UPLOAD_BUSY' })
    expect(gate.counters.busy).toBe(2)
    await t.releaseAll()
    expect(await Promise.all(running)).toEqual(['a', 'b'])
  })

  it('when the queue is 0 and the slot is taken, then a new key is refused', async () => {
    const gate = new RenderGate({ concurrency: 1, queue: 0, maxWaitMs: 5_000 })
    const t = tasks()
    const first = gate.run('a', t.task('a'))
    await expect(gate.run('b', t.task('b'))).rejects.toMatchObject({ reason: 'THUMBNAIL_BUSY' })
    await t.releaseAll()
    await first
  })

  it('when 50 requests ask for the same key, then one task runs and 49 join it, all getting its result', async () => {
    const gate = new RenderGate({ concurrency: 1, queue: 0, maxWaitMs: 5_000 })
    let runs = 0
    const render = async () => {
      runs++
      await sleep(20)
      return Buffer.from('bytes')
    }
    const results = await Promise.all(Array.from({ length: 50 }, () => gate.run('same', render)))
    expect(runs).toBe(1)
    expect(new Set(results).size).toBe(1)
    expect(gate.counters).toEqual({ started: 1, joined: 49, busy: 0 })
    await gate.run('same', render)
    expect(runs).toBe(2) // a finished task is not kept: the store keeps results
  })

  it('when the shared task fails, then every joined request gets the failure, and the key can run again', async () => {
    const gate = new RenderGate({ concurrency: 1, queue: 0, maxWaitMs: 5_000 })
    const failing = async () => {
      await sleep(10)
      throw new Error('broken')
    }
    const results = await Promise.allSettled([gate.run('k', failing), gate.run('k', failing)])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    await expect(gate.run('k', async () => 'ok')).resolves.toBe('ok')
  })

  it('when a queued request waits past the deadline, then it is refused and leaves the queue; the slot still serves the next', async () => {
    const gate = new RenderGate({ concurrency: 1, queue: 5, maxWaitMs: 50 })
    const t = tasks()
    const first = gate.run('a', t.task('a'))
    const started = performance.now()
    await expect(gate.run('b', t.task('b'))).rejects.toMatchObject({ reason: 'THUMBNAIL_BUSY' })
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(gate.load()).toEqual({ active: 1, waiting: 0 })
    await t.releaseAll()
    await first
    await expect(gate.run('c', async () => 'c')).resolves.toBe('c')
    expect(gate.load()).toEqual({ active: 0, waiting: 0 })
  })
})
