import type { Registry } from 'prom-client'

/** One label set's counts: what each observation of a request or call touches. */
export interface DurationChild {
  observe (seconds: number): void
}

interface Counts {
  labels: Record<string, string>
  /** per bucket, not cumulative; cumulated when scraped */
  buckets: number[]
  sum: number
  count: number
}

/** One sample of a scrape, in prom-client's form (what `Registry.metrics()` formats). */
interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName: string
}

/**
 * A histogram of durations whose children are made once per label set and observed without a lookup.
 * prom-client's Histogram (15.1) builds, validates and hashes a labels object on every observation, its
 * children's too: 0.6–0.8 µs an observation in a loop, against 25 ns here, and 3.6–5.3 % of a service's
 * busy time per uncached read when every request and every backend call is observed (loadtest/README.md,
 * "Metrics without a lookup"). This one is registered like any prom-client metric, which asks it for its
 * samples when scraped (`get`); the exposition is prom-client's own, the same text as its Histogram's
 * (duration-histogram.test.ts compares them).
 */
export class DurationHistogram<L extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly children = new Map<string, Counts>()

  constructor (readonly name: string, readonly help: string, private readonly labelNames: readonly L[], private readonly upperBounds: readonly number[]) {}

  /** The child of one label set, in `labelNames` order: keep it and observe through it. */
  labels (...values: string[]): DurationChild {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values, not ${values.length}`)
    const key = values.join('\u0000')
    let counts = this.children.get(key)
    if (counts === undefined) {
      counts = { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i] as string])), buckets: this.upperBounds.map(() => 0), sum: 0, count: 0 }
      this.children.set(key, counts)
    }
    const c = counts
    const bounds = this.upperBounds
    return {
      observe: (seconds) => {
        if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`)
        c.sum += seconds
        c.count++
        for (let i = 0; i < bounds.length; i++) {
          if (seconds <= (bounds[i] as number)) { (c.buckets[i] as number)++; return }
        }
      },
    }
  }

  /** prom-client's samples, in its Histogram's order: each child's buckets (cumulative, `le` first), +Inf, sum, count. */
  get (): { name: string, help: string, type: string, aggregator: string, values: Sample[] } {
    const values: Sample[] = []
    for (const c of this.children.values()) {
      // as in prom-client, a label set appears once observed
      if (c.count === 0) continue
      let cumulative = 0
      this.upperBounds.forEach((le, i) => {
        cumulative += c.buckets[i] as number
        values.push({ labels: { le, ...c.labels }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { le: '+Inf', ...c.labels }, value: c.count, metricName: `${this.name}_bucket` })
      values.push({ labels: { ...c.labels }, value: c.sum, metricName: `${this.name}_sum` })
      values.push({ labels: { ...c.labels }, value: c.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  /** Zeroes every child's counts (Registry.resetMetrics); the children handed out keep counting. */
  reset (): void {
    for (const c of this.children.values()) {
      c.buckets.fill(0)
      c.sum = 0
      c.count = 0
    }
  }
}

/** The histogram registered under its name in `registry`, made there the first time (a module evaluated again reuses it). */
export function durationHistogram<L extends string> (registry: Registry, config: { name: string, help: string, labelNames: readonly L[], buckets: readonly number[] }): DurationHistogram<L> {
  const existing = registry.getSingleMetric(config.name) as unknown
  if (existing instanceof DurationHistogram) return existing as DurationHistogram<L>
  const metric = new DurationHistogram(config.name, config.help, config.labelNames, config.buckets)
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0])
  return metric
}
