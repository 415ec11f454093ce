/**
 * The Grafana dashboard ConfigMap: found by the sidecar's label, valid JSON whose every query reads metrics
 * the services really export, selecting this release's targets, and covering each area an SRE watches.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { describe, expect, it } from 'vitest'
import { CI_VALUES, NAMESPACE, helmSkipReason, ofKind, render, renderWith, skipTitle, type Doc } from './support/chart.js'
import { knownMetrics, metricsOf } from './support/metrics.js'
import { must } from './support/must.js'

const dashboardOf = (configMap: Doc): Doc => JSON.parse(must(configMap.data['content-api.json'])) as Doc
const panelsOf = (dashboard: Doc): Doc[] => (dashboard.panels as Doc[]).filter((p) => p.type !== 'row')
const exprsOf = (panel: Doc): string[] => (panel.targets as Doc[]).map((t) => t.expr as string)

describe.skipIf(helmSkipReason)(`Grafana dashboard${skipTitle}`, () => {
  it('off by default', () => {
    expect(ofKind(render([must(CI_VALUES.minimal)]), 'ConfigMap').map((c) => c.metadata.name)).toEqual(['demo-content-api-gateway-config'])
  })

  it('a ConfigMap with the sidecar\'s label, in the namespace and with the annotations given', () => {
    const [, configMap] = ofKind(render([must(CI_VALUES.full)]), 'ConfigMap')
    new ConfigMap(must(configMap) as ConstructorParameters<typeof ConfigMap>[0]).validate()
    expect(must(configMap).metadata).toMatchObject({
      name: 'content-dashboard', namespace: 'monitoring',
      labels: { grafana_dashboard: '1' }, annotations: { grafana_folder: 'Content' },
    })
    const dashboard = dashboardOf(must(configMap))
    expect(dashboard).toMatchObject({ uid: 'content-api', title: 'Content API' })
    expect((dashboard.templating.list as Doc[]).find((v) => v.type === 'datasource')).toMatchObject({ name: 'datasource', query: 'prometheus' })
  })

  const dashboard = () => dashboardOf(must(ofKind(renderWith({ metrics: { grafanaDashboard: { enabled: true } } }), 'ConfigMap')
    .find((c) => c.metadata.name === 'demo-content-api-dashboard')))

  it('every panel\'s every query names metrics, and only metrics the services export (or prom-client\'s, or up)', () => {
    const known = knownMetrics()
    const panels = panelsOf(dashboard())
    expect(panels.length).toBeGreaterThan(20)
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0)
      for (const expr of exprsOf(panel)) {
        const names = metricsOf(expr)
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0)
        expect(names.filter((n) => !known.has(n)), `${panel.title}: ${expr}`).toEqual([])
      }
    }
  })

  it('the check can fail: a misspelt metric is not among those exported', () => {
    expect(knownMetrics().has('content_read_cache_hit_total')).toBe(false)
    expect(knownMetrics().has('content_read_cache_hits_total')).toBe(true)
  })

  it('covers RED, backend calls, the read cache, the change feed, webhooks, stores and media, and the processes', () => {
    const used = new Set(panelsOf(dashboard()).flatMap(exprsOf).flatMap(metricsOf))
    for (const metric of [
      'http_server_request_duration_seconds', 'rpc_server_call_duration_seconds', 'rpc_client_call_duration_seconds',
      'content_read_cache_hits_total', 'content_read_cache_misses_total', 'content_read_cache_entries', 'content_read_cache_invalidations_total',
      'content_change_feed_live', 'content_change_feed_resets_total', 'content_change_feed_resumes_total', 'content_read_cache_bypassed_total',
      'content_webhook_attempts_total', 'content_webhook_delivery_lag_seconds',
      'content_media_uploads_total', 'content_media_upload_bytes_total', 'content_thumbnail_renders_total', 'content_thumbnail_render_queue_depth',
      'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'up',
    ]) expect(used.has(metric), metric).toBe(true)
  })

  it('every query selects this release\'s targets through the namespace and services constants the chart fills in', () => {
    const d = dashboard()
    const constants = Object.fromEntries((d.templating.list as Doc[]).filter((v) => v.type === 'constant').map((v) => [v.name, v.query]))
    expect(constants).toEqual({ namespace: NAMESPACE, services: 'demo-content-api-(gateway|gateway-metrics|objects|auth|poster)' })
    for (const expr of panelsOf(d).flatMap(exprsOf)) {
      for (const selector of must(expr.match(/[a-z0-9_:]\{[^}]*\}/g))) expect(selector).toContain('namespace="$namespace",service=~"$services"')
    }
  })

  it('panels do not overlap on the grid and ids are unique', () => {
    const panels = dashboard().panels as Doc[]
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length)
    const cells = new Set<string>()
    for (const { gridPos: g, title } of panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24)
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} at ${x},${y}`).toBe(false)
          cells.add(`${x},${y}`)
        }
      }
    }
  })
})
