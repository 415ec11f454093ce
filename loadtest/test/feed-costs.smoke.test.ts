/**
 * `autocannon/feed-costs.mjs` runs end to end on a small file: it imports it into a store of its own and
 * times the change feed telling the events to several streams, each encoding every message and every
 * stream sharing one encoding. It measures nothing here; it proves the tool still runs, and that both
 * ways tell every event and write the same bytes.
 */
import { describe, expect, it } from 'vitest'
import { runScript } from './support/run-script.js'

describe('feed-costs.mjs', () => {
  it('when it follows a small import with two streams, then both ways tell the same events and write the same bytes', async () => {
    const { code, out } = await runScript('feed-costs.mjs', { FEED_OBJECTS: '500', FEED_SUBSCRIBERS: '2', FEED_ROUNDS: '1' })
    expect(code, out).toBe(0)
    const lines = [...out.matchAll(/^round 1, 2 streams, (each encodes|encoded once) {2}: (\d+) events, (\d+) ms, the thread busy (\d+) ms, (\d+\.\d) MB written$/gm)]
    expect(lines.map((l) => l[1]), out).toEqual(['each encodes', 'encoded once'])
    const [each, once] = lines.map((l) => ({ events: Number(l[2]), mb: l[5] }))
    // 500 objects of the scale load: every object created and placed, most related
    expect(each?.events).toBeGreaterThan(1_000)
    expect(once).toEqual(each)
  }, 120_000)
})
