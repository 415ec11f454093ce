import { present } from '../present.js'
/** One series of a Prometheus text exposition. */
export interface Series { name: string, labels: Record<string, string>, value: number }

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Reads what GET /metrics serves (comments and blank lines skipped): for tests and benchmarks. */
export function parseExposition (text: string): Series[] {
  return text.split('\n').flatMap((line) => {
    const match = LINE.exec(line)
    if (!match) return []
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[present(key, 'a label name')] = present(value, 'a label value')
    return [{ name: present(match[1], 'the metric name'), labels, value: Number(match[3]) }]
  })
}

/** The sum of every series of `name` whose labels include `labels`; 0 when none does. */
export function sampleOf (series: Series[], name: string, labels: Record<string, string> = {}): number {
  return series
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)
}
