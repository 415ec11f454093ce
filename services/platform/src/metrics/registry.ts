import {
  Counter, Gauge, Histogram, Registry, collectDefaultMetrics,
  type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration,
} from 'prom-client'
import { durationHistogram, type DurationHistogram } from './duration-histogram.js'

export type { Counter, Gauge, Histogram }

/** The process's one registry: every module's metrics land here and GET /metrics serves it. */
export const metricsRegistry = new Registry()

/**
 * Get-or-create by name, so a module evaluated again, or an app built many times in one process (tests),
 * reuses the metric instead of failing with "already registered".
 */
function once<M> (name: string, create: () => M): M {
  return (metricsRegistry.getSingleMetric(name) as M | undefined) ?? create()
}

type Config<C> = Omit<C, 'registers'>

export const counter = <T extends string>(config: Config<CounterConfiguration<T>>): Counter<T> =>
  once(config.name, () => new Counter({ ...config, registers: [metricsRegistry] }))

export const gauge = <T extends string>(config: Config<GaugeConfiguration<T>>): Gauge<T> =>
  once(config.name, () => new Gauge({ ...config, registers: [metricsRegistry] }))

export const histogram = <T extends string>(config: Config<HistogramConfiguration<T>>): Histogram<T> =>
  once(config.name, () => new Histogram({ ...config, registers: [metricsRegistry] }))

/** Request and call durations, in seconds: 1 ms to 10 s. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** A duration histogram observed on every request or call (DURATION_BUCKETS): duration-histogram.ts says why not prom-client's. */
export const requestDurations = <L extends string>(config: { name: string, help: string, labelNames: readonly L[] }): DurationHistogram<L> =>
  durationHistogram(metricsRegistry, { ...config, buckets: DURATION_BUCKETS })

let processMetrics = false

/**
 * prom-client's standard process and Node.js metrics (memory, CPU, event loop lag, GC, handles), without
 * extra labels: Prometheus adds job and instance. Started with the scrape endpoint, so a process that
 * serves none (tests, tools) runs no event-loop monitor.
 */
export function collectProcessMetrics (): void {
  if (processMetrics) return
  processMetrics = true
  collectDefaultMetrics({ register: metricsRegistry })
}
