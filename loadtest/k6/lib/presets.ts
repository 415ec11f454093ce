/**
 * Load shapes (after grafana/quickpizza's load-options), thresholds and the options every script exports.
 * Scripts pick a shape by PRESET and never hand-roll stages. Type-only k6 imports, so vitest can check them.
 */
import type { Options, Scenario, Threshold } from 'k6/options'
import type { LoadConfig, PresetName } from '../../lib/config.ts'

/** What a scenario runs at: VUs for the closed-model presets, iterations per second for the arrival-rate ones. */
export interface Load { vus: number, rate: number, maxVus: number }

/**
 * `vus` is the steady-state load of `average`; stress doubles it, spike jumps to five times it. The
 * arrival-rate presets start `rate` iterations a second whatever the answers take (an open model, so a slow
 * system builds a queue instead of slowing the load down), from `vus` VUs up to `maxVus`.
 */
export function scenarioFor (preset: PresetName, load: Load): Scenario {
  const { vus, rate, maxVus } = load
  const rampDown = { gracefulRampDown: '30s', gracefulStop: '30s' }
  const arrival = { timeUnit: '1s', preAllocatedVUs: Math.min(vus, maxVus), maxVUs: maxVus, gracefulStop: '30s' }
  switch (preset) {
    case 'smoke':
      return { executor: 'constant-vus', vus: 1, duration: '30s', gracefulStop: '10s' }
    case 'average':
      return { executor: 'ramping-vus', startVUs: 0, stages: [
        { duration: '1m', target: vus }, { duration: '5m', target: vus }, { duration: '1m', target: 0 },
      ], ...rampDown }
    case 'stress':
      return { executor: 'ramping-vus', startVUs: 0, stages: [
        { duration: '2m', target: vus }, { duration: '5m', target: vus * 2 }, { duration: '5m', target: vus * 2 },
        { duration: '2m', target: 0 },
      ], ...rampDown }
    case 'spike':
      return { executor: 'ramping-vus', startVUs: 0, stages: [
        { duration: '10s', target: vus * 5 }, { duration: '1m', target: vus * 5 }, { duration: '10s', target: 0 },
      ], ...rampDown }
    case 'constant-rate':
      return { executor: 'constant-arrival-rate', rate, duration: '5m', ...arrival }
    case 'ramping-rate':
      return { executor: 'ramping-arrival-rate', startRate: 0, stages: [
        { duration: '1m', target: rate }, { duration: '5m', target: rate }, { duration: '1m', target: 0 },
      ], ...arrival }
  }
}

/** A share of the load for one of several scenarios (a mixed script): at least one VU and one iteration a second. */
export function shareOf (load: Load, fraction: number): Load {
  const part = (n: number) => Math.max(1, Math.round(n * fraction))
  return { vus: part(load.vus), rate: part(load.rate), maxVus: part(load.maxVus) }
}

export interface LatencyBudget { p95: number, p99: number }

/**
 * Thresholds that make `k6 run` exit non-zero on a regression: under 1 % failed requests, latency budgets
 * overall and per named request, and more than 99 % of checks passing. Each is set on the scenario's
 * sub-metric, so the requests of setup() and teardown(), which belong to no scenario, never count.
 */
export function thresholdsFor (scenario: string, overall: LatencyBudget, perName: Record<string, LatencyBudget> = {}): Record<string, Threshold[]> {
  const budget = (b: LatencyBudget) => [`p(95)<${b.p95}`, `p(99)<${b.p99}`]
  const thresholds: Record<string, Threshold[]> = {
    [`http_req_failed{scenario:${scenario}}`]: ['rate<0.01'],
    [`http_req_duration{scenario:${scenario}}`]: budget(overall),
    [`checks{scenario:${scenario}}`]: ['rate>0.99'],
  }
  // the name last: it may hold braces (`GET /objects/{id}`), and k6 reads tags up to the last one
  for (const [name, b] of Object.entries(perName)) thresholds[`http_req_duration{scenario:${scenario},name:${name}}`] = budget(b)
  return thresholds
}

/** One scenario of a script: the function it runs (default: the default export), its share of the load, its budgets. */
export interface ScenarioPlan { exec?: string, share?: number, overall: LatencyBudget, perName?: Record<string, LatencyBudget> }

/**
 * A script's options: its scenarios shaped by PRESET, their thresholds, the `testid` tag on every metric
 * (k6-operator and Grafana dashboards group a run's series by it), and p99 in the end-of-test summary.
 */
export function runOptions (config: LoadConfig, plans: Record<string, ScenarioPlan>): Options {
  const load: Load = { vus: config.vus, rate: config.rate, maxVus: config.maxVus }
  const scenarios: Record<string, Scenario> = {}
  let thresholds: Record<string, Threshold[]> = {}
  for (const [name, plan] of Object.entries(plans)) {
    const shape = scenarioFor(config.preset, plan.share === undefined ? load : shareOf(load, plan.share))
    scenarios[name] = plan.exec === undefined ? shape : { ...shape, exec: plan.exec }
    thresholds = { ...thresholds, ...thresholdsFor(name, plan.overall, plan.perName) }
  }
  return {
    scenarios,
    thresholds,
    tags: { testid: config.testId },
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
  }
}

/** Total duration of a preset's stages in seconds (for docs and sanity checks). */
export function presetSeconds (scenario: Scenario): number {
  const toSeconds = (d: string) => {
    const m = /^(\d+)(s|m|h)$/.exec(d)
    if (!m) throw new Error(`unsupported duration ${d}`)
    return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h']
  }
  if ('stages' in scenario) return scenario.stages.reduce((sum, s) => sum + toSeconds(s.duration), 0)
  if ('duration' in scenario && typeof scenario.duration === 'string') return toSeconds(scenario.duration)
  throw new Error(`no duration for executor ${scenario.executor}`)
}
