import { describe, expect, it } from 'vitest'
import { PRESETS, readConfig } from '../lib/config.ts'
import { presetSeconds, runOptions, scenarioFor, shareOf, thresholdsFor } from '../k6/lib/presets.ts'

const LOAD = { vus: 10, rate: 40, maxVus: 200 }
const peak = (s: ReturnType<typeof scenarioFor>) =>
  'stages' in s ? Math.max(...s.stages.map((st) => st.target)) : 'vus' in s ? (s.vus ?? 0) : 'rate' in s ? s.rate : 0

describe('load presets', () => {
  it('define every preset the config accepts', () => {
    for (const name of PRESETS) expect(() => scenarioFor(name, LOAD)).not.toThrow()
  })

  it('smoke is one VU for 30 s whatever VUS says', () => {
    expect(scenarioFor('smoke', { ...LOAD, vus: 50 })).toEqual({ executor: 'constant-vus', vus: 1, duration: '30s', gracefulStop: '10s' })
  })

  it.each([['average', 1], ['stress', 2], ['spike', 5]] as const)('%s peaks at %i × VUS and ramps back to 0', (name, factor) => {
    const s = scenarioFor(name, LOAD)
    expect(peak(s)).toBe(10 * factor)
    expect('stages' in s && s.stages.at(-1)?.target).toBe(0)
  })

  it('constant-rate starts RATE iterations a second for 5 min, from VUS up to MAX_VUS VUs (an open model)', () => {
    expect(scenarioFor('constant-rate', LOAD)).toEqual({
      executor: 'constant-arrival-rate', rate: 40, timeUnit: '1s', duration: '5m', preAllocatedVUs: 10, maxVUs: 200, gracefulStop: '30s',
    })
  })

  it('ramping-rate climbs from 0 to RATE a second, holds it, and comes back to 0', () => {
    const s = scenarioFor('ramping-rate', LOAD)
    expect(s).toMatchObject({ executor: 'ramping-arrival-rate', startRate: 0, timeUnit: '1s', preAllocatedVUs: 10, maxVUs: 200 })
    expect(peak(s)).toBe(40)
    expect('stages' in s && s.stages.at(-1)?.target).toBe(0)
  })

  it('spike reaches its peak faster than stress', () => {
    const firstStage = (name: 'spike' | 'stress') => {
      const s = scenarioFor(name, LOAD)
      return 'stages' in s ? presetSeconds({ ...s, stages: s.stages.slice(0, 1) }) : Infinity
    }
    expect(firstStage('spike')).toBeLessThan(firstStage('stress'))
  })

  it('durations: smoke 30 s, average 7 min, stress 14 min, spike 80 s, constant-rate 5 min, ramping-rate 7 min', () => {
    expect(PRESETS.map((p) => presetSeconds(scenarioFor(p, LOAD)))).toEqual([30, 420, 840, 80, 300, 420])
  })

  it('a share of the load keeps at least one VU and one iteration a second', () => {
    expect(shareOf(LOAD, 0.1)).toEqual({ vus: 1, rate: 4, maxVus: 20 })
    expect(shareOf({ vus: 3, rate: 2, maxVus: 5 }, 0.1)).toEqual({ vus: 1, rate: 1, maxVus: 1 })
  })
})

describe('thresholds', () => {
  it('bound failures, latency and checks of the scenario\'s own requests (not setup\'s or teardown\'s), plus per-name budgets', () => {
    expect(thresholdsFor('reads', { p95: 300, p99: 800 }, { 'GET /objects/{id}': { p95: 200, p99: 500 } })).toEqual({
      'http_req_failed{scenario:reads}': ['rate<0.01'],
      'http_req_duration{scenario:reads}': ['p(95)<300', 'p(99)<800'],
      'checks{scenario:reads}': ['rate>0.99'],
      'http_req_duration{scenario:reads,name:GET /objects/{id}}': ['p(95)<200', 'p(99)<500'],
    })
  })

  it('every threshold names a scenario (the unfiltered metrics would count setup())', () => {
    const options = runOptions(readConfig({}), { a: { overall: { p95: 1, p99: 2 } }, b: { exec: 'b', share: 0.5, overall: { p95: 3, p99: 4 } } })
    for (const key of Object.keys(options.thresholds ?? {})) expect(key).toMatch(/\{scenario:(a|b)[,}]/)
  })
})

describe('runOptions', () => {
  it('tags every metric with the run\'s testid and asks the summary for p99', () => {
    const options = runOptions(readConfig({ TESTID: 'nightly-7', PRESET: 'constant-rate', RATE: '100' }), {
      reads: { exec: 'reads', share: 0.9, overall: { p95: 1, p99: 2 } },
      writes: { exec: 'writes', share: 0.1, overall: { p95: 1, p99: 2 } },
    })
    expect(options.tags).toEqual({ testid: 'nightly-7' })
    expect(options.summaryTrendStats).toContain('p(99)')
    expect(options.scenarios).toMatchObject({
      reads: { executor: 'constant-arrival-rate', rate: 90, exec: 'reads' },
      writes: { executor: 'constant-arrival-rate', rate: 10, exec: 'writes' },
    })
  })
})
