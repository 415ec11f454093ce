/**
 * `autocannon/live-streams.mjs` runs end to end: it starts the system on the bench's store, opens live
 * streams of both kinds beside reads and creates, and checks that every stream got every create's event.
 * It measures nothing here (ten streams, one second a phase); it proves the tool still runs against the
 * system it measures, and that its summary counts what it says.
 */
import { describe, expect, it } from 'vitest'
import { runScript } from './support/run-script.js'

const run = (env: Record<string, string>) => runScript('live-streams.mjs', env)

describe('live-streams.mjs', () => {
  it('when ten streams are open beside reads and creates, then every one gets every create, once, and the summary says so', async () => {
    const { code, out } = await run({ LIVE_STREAMS: '10', LIVE_DURATION: '1', LIVE_FIRST_WARMUP: '1', LIVE_WRITES: '20' })
    expect(code, out).toBe(0)
    expect(out).toMatch(/LIVE_MAX_STREAMS_PER_CALLER=2000/)
    const summary = JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{')).at(-1) ?? '{}')
    expect(summary.streams).toBe(10)
    expect(summary.events.expected, out).toBeGreaterThan(0)
    expect(summary.events).toMatchObject({ received: summary.events.expected, missedAdmin: 0, missedAnonymous: 0, twice: 0 })
    expect(summary.latencyMs.fromCommit.n).toBe(summary.events.expected)
    expect(summary.latencyMs.fromAnswer.p50).toBeLessThanOrEqual(summary.latencyMs.fromRequest.p50)
    expect(summary.gatewayMiB.openIdle.rss).toBeGreaterThan(0)
    expect(summary.failures).toEqual([])
  }, 180_000)
})
