/**
 * Load shapes (after grafana/quickpizza's load-options) and thresholds. Scripts pick a shape by
 * PRESET and never hand-roll stages. Type-only k6 imports, so vitest can check the shapes.
 */
import type { Scenario, Threshold } from 'k6/options'
import type { PresetName } from '../../lib/config.ts'

/**
 * `vus` is the steady-state load of `average`; stress doubles it, spike jumps to five times it.
 * Each scenario runs the script's default function.
 */
export function scenarioFor (preset: PresetName, vus: number): Scenario {
  const rampDown = { gracefulRampDown: '30s', gracefulStop: '30s' }
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
  }
}

export interface LatencyBudget { p95: number, p99: number }

/**
 * Thresholds that make `k6 run` exit non-zero on a regression: under 1 % failed requests, latency
 * budgets overall and per named request, and more than 99 % of checks passing.
 */
export function thresholdsFor (overall: LatencyBudget, perName: Record<string, LatencyBudget> = {}): Record<string, Threshold[]> {
  const budget = (b: LatencyBudget) => [`p(95)<${b.p95}`, `p(99)<${b.p99}`]
  const thresholds: Record<string, Threshold[]> = {
    http_req_failed: ['rate<0.01'],
    http_req_duration: budget(overall),
    checks: ['rate>0.99'],
  }
  for (const [name, b] of Object.entries(perName)) thresholds[`http_req_duration{name:${name}}`] = budget(b)
  return thresholds
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
