import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { durationHistogram } from '../../src/metrics/duration-histogram.js'
import { DURATION_BUCKETS } from '../../src/metrics/registry.js'
import { seededRandom } from '../../src/testing.js'

const config = { name: 'test_duration_seconds', help: 'Durations under test.', labelNames: ['method', 'route', 'status'] as const }

/** prom-client's Histogram and a DurationHistogram, each in a registry of its own, fed the same observations. */
function pair () {
  const theirs = new Registry()
  const ours = new Registry()
  const reference = new Histogram({ ...config, labelNames: [...config.labelNames], buckets: DURATION_BUCKETS, registers: [theirs] })
  const fast = durationHistogram(ours, { ...config, buckets: DURATION_BUCKETS })
  return {
    theirs, ours, fast,
    observe (labels: [string, string, string], seconds: number) {
      reference.labels(...labels).observe(seconds)
      fast.labels(...labels).observe(seconds)
    },
  }
}

describe('DurationHistogram', () => {
  it('scrapes as the same text as prom-client\'s Histogram fed the same observations', async () => {
    const { theirs, ours, observe } = pair()
    const next = seededRandom(7)
    const labelSets: Array<[string, string, string]> = [['GET', '/objects/:id', '200'], ['POST', '/objects', '201'], ['GET', 'unmatched', '404'], ['GET', 'quote"and\\back\nslash', '500']]
    for (let i = 0; i < 5_000; i++) {
      const labels = labelSets[Math.floor(next() * labelSets.length)] as [string, string, string]
      // durations from 0 to 20 s on a log scale, crossing every bucket and past the last
      observe(labels, Math.exp(next() * 16) / 8_886_110 * 20 * (next() < 0.05 ? 0 : 1))
    }
    // exactly on each bound: `le` is inclusive
    for (const bound of DURATION_BUCKETS) observe(['GET', '/objects/:id', '200'], bound)
    const text = await ours.metrics()
    expect(text).toBe(await theirs.metrics())
    expect(text).toContain('test_duration_seconds_bucket{le="0.001",method="GET",route="/objects/:id",status="200"}')
    expect(text).toContain('test_duration_seconds_count{method="POST",route="/objects",status="201"}')
    // every bucket of every label set counted something (the comparison covered more than empty buckets)
    const buckets = [...text.matchAll(/^test_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/objects\/:id",status="200"\} (\d+)$/gm)]
    expect(buckets).toHaveLength(DURATION_BUCKETS.length + 1)
    expect(new Set(buckets.map((m) => m[2])).size).toBe(buckets.length)
  })

  it('shows a label set once observed, and zeroes on reset while its children keep counting', async () => {
    const { theirs, ours, fast, observe } = pair()
    const child = fast.labels('GET', '/never', '200')
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).not.toContain('/never')
    observe(['GET', '/a', '200'], 0.003)
    theirs.resetMetrics()
    ours.resetMetrics()
    expect(await ours.metrics()).toBe(await theirs.metrics())
    expect(await ours.metrics()).not.toContain('route="/a"')
    observe(['GET', '/a', '200'], 0.02)
    child.observe(0.5)
    const text = await ours.metrics()
    expect(text).toContain('test_duration_seconds_count{method="GET",route="/a",status="200"} 1')
    expect(text).toContain('test_duration_seconds_sum{method="GET",route="/a",status="200"} 0.02')
    expect(text).toContain('test_duration_seconds_count{method="GET",route="/never",status="200"} 1')
  })

  it('is made once per registry and name, and refuses a wrong number of label values or a duration that is not a number', () => {
    const registry = new Registry()
    const first = durationHistogram(registry, { ...config, buckets: DURATION_BUCKETS })
    expect(durationHistogram(registry, { ...config, buckets: DURATION_BUCKETS })).toBe(first)
    expect(() => first.labels('GET', '/a')).toThrow(/takes 3 label values, not 2/)
    expect(() => first.labels('GET', '/a', '200').observe(Number.NaN)).toThrow(TypeError)
    expect(() => first.labels('GET', '/a', '200').observe(Number.POSITIVE_INFINITY)).toThrow(TypeError)
  })
})
