/** The metric names the services really export, read from their code, and the names a PromQL query reads. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './helm.js'
import { must } from './must.js'

/**
 * Every metric a service registers (`counter({ name: '…'`, `gauge(`, `histogram(`, `requestDurations(` of
 * @content/platform), prom-client's default metrics, and `up` (Prometheus adds it to every target).
 */
export function knownMetrics (): Set<string> {
  const names = new Set(['up'])
  const scan = (dir: string, ext: RegExp, pattern: RegExp) => {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !ext.test(entry.name) || /\.test\.ts$/.test(entry.name)) continue
      for (const m of readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(pattern)) names.add(must(m[1]))
    }
  }
  for (const service of readdirSync(join(REPO_ROOT, 'services'))) {
    scan(join(REPO_ROOT, 'services', service, 'src'), /\.ts$/, /\b(?:counter|gauge|histogram|requestDurations)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)
  }
  scan(join(REPO_ROOT, 'node_modules/prom-client/lib/metrics'), /\.js$/, /= '([a-z_:][a-z0-9_:]*)'/g)
  return names
}

/**
 * The series a PromQL expression reads: every name followed by a selector (the chart's queries all select
 * the release's targets), with a histogram's `_bucket`, `_count` and `_sum` taken back to its name.
 */
export const metricsOf = (expr: string): string[] =>
  [...expr.matchAll(/([a-z_:][a-z0-9_:]*)\{/g)].map((m) => must(m[1]).replace(/_(bucket|count|sum)$/, ''))
