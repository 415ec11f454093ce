import { describe, expect, it } from 'vitest'
import { PRESETS } from '../lib/config.ts'
import { presetSeconds, scenarioFor, thresholdsFor } from '../k6/lib/presets.ts'

const peak = (s: ReturnType<typeof scenarioFor>) =>
  'stages' in s ? Math.max(...s.stages.map((st) => st.target)) : 'vus' in s ? (s.vus ?? 0) : 0

describe('load presets', () => {
  it('define every preset the config accepts', () => {
    for (const name of PRESETS) expect(() => scenarioFor(name, 10)).not.toThrow()
  })

  it('smoke is one VU for 30 s whatever VUS says', () => {
    expect(scenarioFor('smoke', 50)).toEqual({ executor: 'constant-vus', vus: 1, duration: '30s', gracefulStop: '10s' })
  })

  it.each([['average', 1], ['stress', 2], ['spike', 5]] as const)('%s peaks at %i × VUS and ramps back to 0', (name, factor) => {
    const s = scenarioFor(name, 10)
    expect(peak(s)).toBe(10 * factor)
    expect('stages' in s && s.stages.at(-1)?.target).toBe(0)
  })

  it('spike reaches its peak faster than stress', () => {
    const firstStage = (name: 'spike' | 'stress') => {
      const s = scenarioFor(name, 10)
      return 'stages' in s ? presetSeconds({ ...s, stages: s.stages.slice(0, 1) }) : Infinity
    }
    expect(firstStage('spike')).toBeLessThan(firstStage('stress'))
  })

  it('durations: smoke 30 s, average 7 min, stress 14 min, spike 80 s', () => {
    expect(PRESETS.map((p) => presetSeconds(scenarioFor(p, 10)))).toEqual([30, 420, 840, 80])
  })
})

describe('thresholds', () => {
  it('bound failures, latency and checks, plus per-name budgets', () => {
    expect(thresholdsFor({ p95: 300, p99: 800 }, { 'GET /objects/{id}': { p95: 200, p99: 500 } })).toEqual({
      http_req_failed: ['rate<0.01'],
      http_req_duration: ['p(95)<300', 'p(99)<800'],
      checks: ['rate>0.99'],
      'http_req_duration{name:GET /objects/{id}}': ['p(95)<200', 'p(99)<500'],
    })
  })
})
