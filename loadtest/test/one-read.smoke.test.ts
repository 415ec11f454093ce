/**
 * `autocannon/one-read.mjs` runs end to end: it starts the system on the bench's store, measures its read
 * and prints one figure per round with each service's CPU per request. It measures nothing here (one
 * round of one second); it proves the tool still runs against the system it measures.
 */
import { describe, expect, it } from 'vitest'
import { runScript } from './support/run-script.js'

const run = (env: Record<string, string>) => runScript('one-read.mjs', { ONE_READ_ROUNDS: '1', ONE_READ_DURATION: '1', ...env })

describe('one-read.mjs', () => {
  it('when it measures the page of 20 without the cache beside creates, then it prints a figure whose every answer was 2xx', async () => {
    const { code, out } = await run({ ONE_READ: 'b', READ_CACHE: 'false', ONE_READ_WRITES: '5' })
    expect(code, out).toBe(0)
    const figure = /^\(b\) (\d+) req\/s .*non-2xx (\d+)\s+errors (\d+)\s+cpu ms\/req: gateway (\d+\.\d+), objects (\d+\.\d+)$/m.exec(out)
    expect(figure, out).not.toBeNull()
    const [, rps, non2xx, errors, gateway, objects] = (figure ?? []).map(Number)
    expect(rps).toBeGreaterThan(0)
    expect([non2xx, errors]).toEqual([0, 0])
    expect(gateway).toBeGreaterThan(0)
    expect(objects).toBeGreaterThan(0)
    expect(out).not.toMatch(/creates not answered 201/)
    // without the cache every page is a ListTree the objects service answered; fifty connections' pages
    // share batches, each of two members at least (a member alone in its turn is a call of its own)
    const calls = /^ {4}the objects service answered (\d+) ListTree: (\d+) in (\d+) batches, (\d+) as calls of their own$/m.exec(out)
    expect(calls, out).not.toBeNull()
    const [answered, batched, batches] = [calls?.[1], calls?.[2], calls?.[3]].map(Number)
    expect(answered).toBeGreaterThanOrEqual(Number(rps))
    expect(batches, out).toBeGreaterThan(0)
    expect(batched).toBeGreaterThanOrEqual(2 * Number(batches))
    expect(batched).toBeLessThanOrEqual(Number(answered))
  }, 120_000)
})
