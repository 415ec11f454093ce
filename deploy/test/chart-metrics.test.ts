/** Prometheus metrics: the `metrics` ports, the ServiceMonitor that scrapes them, the PrometheusRule alerts. */
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, NAMESPACE, componentOf, containerOf, deploymentOf, envValue, helmSkipReason, ofComponent, ofKind, render,
  renderWith, skipTitle, type Doc, type RenderedDoc,
} from './support/chart.js'
import { knownMetrics, metricsOf } from './support/metrics.js'
import { must } from './support/must.js'

const portNamed = (ports: Doc[], name: string) => ports.find((p) => p.name === name)
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v)

describe.skipIf(helmSkipReason)(`metrics ports${skipTitle}`, () => {
  it.each(Object.keys(CI_VALUES))('ci/%s: every container serves METRICS_PORT on its `metrics` port, and its Service exposes it', (name) => {
    const docs = render([must(CI_VALUES[name])])
    for (const c of COMPONENTS) {
      const container = containerOf(deploymentOf(docs, c))
      const port = must(portNamed(container.ports, 'metrics'))
      expect(port, c).toBeDefined()
      expect(envValue(container, 'METRICS_PORT'), c).toBe(String(port.containerPort))
      expect(port.containerPort).not.toBe(container.ports[0].containerPort)
      expect(portNamed(ofComponent(docs, 'Service', c).spec.ports, 'metrics'), c)
        .toEqual({ name: 'metrics', port: port.containerPort, targetPort: 'metrics', protocol: 'TCP' })
    }
  })

  it('defaults to 9464', () => {
    expect(envValue(containerOf(deploymentOf(render([must(CI_VALUES.minimal)]), 'auth')), 'METRICS_PORT')).toBe('9464')
  })

  it('a NodePort or LoadBalancer gateway keeps metrics off the public Service, on a ClusterIP Service of their own', () => {
    const docs = renderWith({ gateway: { service: { type: 'LoadBalancer' } } })
    const services = ofKind(docs, 'Service').filter((s) => componentOf(s) === 'gateway')
    const pub = must(services.find((s) => s.spec.type === 'LoadBalancer'))
    const internal = must(services.find((s) => s.spec.type === 'ClusterIP'))
    expect(pub.spec.ports.map((p: Doc) => p.name)).toEqual(['http'])
    expect(internal.metadata.name).toBe('demo-content-api-gateway-metrics')
    expect(internal.spec.ports.map((p: Doc) => p.name)).toEqual(['metrics'])
  })
})

describe.skipIf(helmSkipReason)(`ServiceMonitor${skipTitle}`, () => {
  it('off by default', () => {
    expect(ofKind(render([must(CI_VALUES.minimal)]), 'ServiceMonitor')).toEqual([])
  })

  function scraped (docs: RenderedDoc[]): string[] {
    const [monitor] = ofKind(docs, 'ServiceMonitor')
    expect(must(monitor).spec.namespaceSelector).toEqual({ matchNames: [NAMESPACE] })
    const endpointPorts = (must(monitor).spec.endpoints as Doc[]).map((e) => e.port)
    return ofKind(docs, 'Service')
      .filter((s) => matches(must(monitor).spec.selector.matchLabels, s.metadata.labels))
      .filter((s) => (s.spec.ports as Doc[]).some((p) => endpointPorts.includes(p.name)))
      .map((s) => must(componentOf(s)))
      .sort()
  }

  it('scrapes the `metrics` port of every component\'s Service, each once, /metrics at the set interval', () => {
    const docs = render([must(CI_VALUES.full)])
    const [monitor] = ofKind(docs, 'ServiceMonitor')
    expect(must(monitor).metadata).toMatchObject({ namespace: 'monitoring', labels: { release: 'kube-prometheus-stack' } })
    expect(must(monitor).spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s', scrapeTimeout: '5s' }])
    expect(must(monitor).spec.jobLabel).toBe('app.kubernetes.io/component')
    expect(scraped(docs)).toEqual([...COMPONENTS].sort())
  })

  it('still scrapes the gateway once when its metrics live on a Service of their own', () => {
    expect(scraped(renderWith({ gateway: { service: { type: 'NodePort' } }, metrics: { serviceMonitor: { enabled: true } } })))
      .toEqual([...COMPONENTS].sort())
  })
})

describe.skipIf(helmSkipReason)(`PrometheusRule${skipTitle}`, () => {
  const rules = (docs: RenderedDoc[]): Doc[] => must(ofKind(docs, 'PrometheusRule')[0]).spec.groups.flatMap((g: Doc) => g.rules)

  it('off by default', () => {
    expect(ofKind(render([must(CI_VALUES.minimal)]), 'PrometheusRule')).toEqual([])
  })

  it('alerts on 5xx ratio, p99 latency, backend errors and reachability, pods down, event-loop lag, thumbnail queue, change feed and webhooks', () => {
    expect(rules(render([must(CI_VALUES.full)])).map((r) => r.alert)).toEqual([
      'ContentApiHigh5xxRatio', 'ContentApiHighLatency', 'ContentApiBackendErrors', 'ContentApiBackendUnreachable',
      'ContentApiPodDown', 'ContentApiEventLoopLag', 'ContentApiThumbnailQueueSaturated', 'ContentApiChangeFeedDown',
      'ContentApiWebhookDeliveriesFailing',
    ])
    for (const rule of rules(render([must(CI_VALUES.full)]))) {
      expect(rule.for, rule.alert).toMatch(/^\d+m$/)
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels.severity)
      expect(rule.annotations.summary, rule.alert).toBeTruthy()
    }
  })

  it('every metric an alert reads is one the services register (or prom-client\'s defaults, or up)', () => {
    const known = knownMetrics()
    const used = new Set<string>()
    for (const rule of rules(render([must(CI_VALUES.full)]))) {
      const names = metricsOf(rule.expr as string)
      expect(names.length, rule.alert).toBeGreaterThan(0)
      for (const n of names) used.add(n)
    }
    expect([...used].filter((n) => !known.has(n))).toEqual([])
    expect([...used].sort()).toEqual([
      'content_change_feed_live', 'content_thumbnail_render_queue_depth', 'content_webhook_attempts_total',
      'http_server_request_duration_seconds', 'nodejs_eventloop_lag_p99_seconds', 'rpc_client_call_duration_seconds',
      'rpc_server_call_duration_seconds', 'up',
    ])
  })

  it('selects the release\'s targets by namespace and Service, with thresholds from values', () => {
    const docs = renderWith({
      metrics: { prometheusRule: { enabled: true, thresholds: { http5xxRatio: 0.02, thumbnailQueueRatio: 0.5 } } },
      poster: { media: { renderQueue: 40 } },
    })
    const byName = new Map(rules(docs).map((r) => [r.alert, r.expr as string]))
    for (const expr of byName.values()) {
      for (const selector of must(expr.match(/\{[^}]*\}/g))) {
        expect(selector).toContain(`namespace="${NAMESPACE}",service=~"demo-content-api-(gateway|gateway-metrics|objects|auth|poster)"`)
      }
    }
    expect(byName.get('ContentApiHigh5xxRatio')).toMatch(/> 0\.02\s*$/)
    expect(byName.get('ContentApiThumbnailQueueSaturated')).toMatch(/> 20\s*$/)
    expect(byName.get('ContentApiBackendErrors')).toContain('rpc_grpc_status_code=~"2|13|14"')
  })
})
