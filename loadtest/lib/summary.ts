/**
 * The end-of-test summary (k6's handleSummary): a few lines for a person, then the whole summary as one JSON
 * line, the last of stdout, so that a pod's log keeps it (`kubectl logs … | tail -n 1`); and the same JSON
 * in SUMMARY_FILE when set. With handleSummary defined k6 prints no summary of its own.
 */

interface Metric { type: string, values: Record<string, number>, thresholds?: Record<string, { ok: boolean }> }
/** The part of k6's summary data read here; the rest is written out as it came. */
export interface SummaryData { metrics: Record<string, Metric>, state?: { testRunDurationMs?: number } }

const percent = (x: number | undefined) => (x === undefined ? '–' : `${(x * 100).toFixed(2)} %`)
const ms = (x: number | undefined) => (x === undefined ? '–' : `${x.toFixed(1)} ms`)

/** Every threshold as `metric expression`, with whether it held. */
export function thresholdResults (data: SummaryData): Array<{ name: string, ok: boolean }> {
  return Object.entries(data.metrics).flatMap(([metric, m]) =>
    Object.entries(m.thresholds ?? {}).map(([expr, t]) => ({ name: `${metric} ${expr}`, ok: t.ok })))
}

export function summaryText (testId: string, data: SummaryData): string {
  const reqs = data.metrics.http_reqs?.values.count ?? 0
  const duration = data.metrics.http_req_duration?.values
  const results = thresholdResults(data)
  const failed = results.filter((r) => !r.ok)
  const seconds = data.state?.testRunDurationMs === undefined ? '' : ` in ${(data.state.testRunDurationMs / 1000).toFixed(0)} s`
  return [
    `testid ${testId}: ${reqs} requests${seconds}, ${percent(data.metrics.http_req_failed?.values.rate)} failed, checks ${percent(data.metrics.checks?.values.rate)} passed`,
    `http_req_duration p95 ${ms(duration?.['p(95)'])}, p99 ${ms(duration?.['p(99)'])} (setup and teardown included; the thresholds leave them out)`,
    `thresholds: ${results.length - failed.length} passed, ${failed.length} failed`,
    ...failed.map((r) => `  ✗ ${r.name}`),
  ].join('\n')
}

/** handleSummary of a script: its output files (k6 writes each key; `stdout` is printed). */
export function summaryHandler (testId: string, summaryFile: string | undefined): (data: SummaryData) => Record<string, string> {
  return (data) => {
    const json = JSON.stringify({ testid: testId, ...data })
    return { stdout: `${summaryText(testId, data)}\n${json}\n`, ...(summaryFile ? { [summaryFile]: json } : {}) }
  }
}
