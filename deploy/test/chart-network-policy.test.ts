/**
 * NetworkPolicies, on by default: every connection the system needs is allowed and the ones it does
 * not need are refused, decided over the rendered policies as the NetworkPolicy API defines them.
 */
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, NAMESPACE, containerOf, deploymentOf, helmSkipReason, ofKind, render, renderWith, skipTitle,
  type Doc, type RenderedDoc,
} from './support/chart.js'
import { allows, type Connection, type Endpoint } from './support/network-policy.js'
import { must } from './support/must.js'

/** The release's pods, as endpoints with their labels and named ports. */
function pods (docs: RenderedDoc[]): Record<string, Endpoint> {
  const out: Record<string, Endpoint> = {}
  const add = (name: string, labels: Record<string, string>, containers: Doc[]) => {
    out[name] = {
      namespace: NAMESPACE, labels,
      ports: Object.fromEntries(containers.flatMap((c) => (c.ports ?? []) as Doc[]).map((p) => [p.name, p.containerPort])),
    }
  }
  for (const c of COMPONENTS) {
    const d = deploymentOf(docs, c)
    add(c, d.spec.template.metadata.labels, d.spec.template.spec.containers)
  }
  const test = must(ofKind(docs, 'Pod')[0])
  add('test', test.metadata.labels, test.spec.containers)
  return out
}

const elsewhere = (namespace: string, labels: Record<string, string> = { app: 'x' }): Endpoint => ({ namespace, labels })
const KUBE_DNS: Endpoint = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }
const PROMETHEUS: Endpoint = elsewhere('monitoring', { 'app.kubernetes.io/name': 'prometheus' })
const NEIGHBOUR = elsewhere(NAMESPACE)
const external = (ip: string): Endpoint => ({ namespace: '', ip })
const tcp = (port: number): Connection => ({ port })

function network (docs: RenderedDoc[]) {
  const policies = ofKind(docs, 'NetworkPolicy')
  const p = pods(docs)
  const can = (from: Endpoint | string, to: Endpoint | string, conn: Connection) =>
    allows(policies, NAMESPACE, typeof from === 'string' ? must(p[from]) : from, typeof to === 'string' ? must(p[to]) : to, conn)
  return { can, pods: p }
}

describe.skipIf(helmSkipReason)(`network policies${skipTitle}`, () => {
  describe('defaults (ci/minimal-values.yaml)', () => {
    const docs = () => render([must(CI_VALUES.minimal)])

    it('a default-deny policy selects every pod of the release, both directions, with no rule', () => {
      const [deny] = ofKind(docs(), 'NetworkPolicy').filter((p) => p.metadata.name.endsWith('-default-deny'))
      expect(must(deny).spec).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'content-api', 'app.kubernetes.io/instance': 'demo' } },
        policyTypes: ['Ingress', 'Egress'],
      })
      const { can } = network(docs())
      // a pod of the release no other policy names gets nothing: a label the chart's selector matches, no component
      const stray: Endpoint = { namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': 'content-api', 'app.kubernetes.io/instance': 'demo' } }
      expect(can(NEIGHBOUR, stray, tcp(8080))).toBe(false)
      expect(can(stray, KUBE_DNS, { port: 53, protocol: 'UDP' })).toBe(false)
    })

    it('anyone may reach the gateway\'s HTTP port, and only that', () => {
      const { can } = network(docs())
      expect(can(elsewhere('somewhere'), 'gateway', tcp(8080))).toBe(true)
      expect(can(NEIGHBOUR, 'gateway', tcp(8080))).toBe(true)
      expect(can(NEIGHBOUR, 'gateway', tcp(22))).toBe(false)
    })

    it('each backend accepts only the pods that call it: gateway → objects, auth, poster; poster → objects', () => {
      const { can } = network(docs())
      const calls: Array<[string, string, number, boolean]> = [
        ['gateway', 'objects', 50051, true], ['gateway', 'auth', 50052, true], ['gateway', 'poster', 50053, true],
        ['poster', 'objects', 50051, true], ['poster', 'auth', 50052, false],
        ['objects', 'auth', 50052, false], ['objects', 'poster', 50053, false], ['auth', 'objects', 50051, false],
        ['test', 'objects', 50051, false], ['objects', 'gateway', 8080, false],
      ]
      for (const [from, to, port, allowed] of calls) expect(can(from, to, tcp(port)), `${from} → ${to}:${port}`).toBe(allowed)
      for (const backend of ['objects', 'auth', 'poster']) {
        expect(can(NEIGHBOUR, backend, tcp(50051)), `neighbour → ${backend}`).toBe(false)
        expect(can(elsewhere('somewhere'), backend, tcp(50052)), `elsewhere → ${backend}`).toBe(false)
      }
    })

    it('every pod resolves names through kube-dns only (UDP and TCP 53)', () => {
      const { can } = network(docs())
      for (const from of [...COMPONENTS, 'test']) {
        expect(can(from, KUBE_DNS, { port: 53, protocol: 'UDP' }), from).toBe(true)
        expect(can(from, KUBE_DNS, { port: 53, protocol: 'TCP' }), from).toBe(true)
        expect(can(from, external('8.8.8.8'), { port: 53, protocol: 'UDP' }), from).toBe(false)
      }
    })

    it('backends reach PostgreSQL (5432) and auth alone reaches Redis (6379); the gateway reaches neither, nobody MongoDB', () => {
      const { can } = network(docs())
      const db = external('10.0.0.5')
      for (const backend of ['objects', 'auth', 'poster']) expect(can(backend, db, tcp(5432)), backend).toBe(true)
      for (const c of COMPONENTS) expect(can(c, db, tcp(27017)), c).toBe(false)
      expect(can('gateway', db, tcp(5432))).toBe(false)
      expect(can('auth', db, tcp(6379))).toBe(true)
      for (const other of ['gateway', 'objects', 'poster']) expect(can(other, db, tcp(6379)), other).toBe(false)
    })

    it('nothing else leaves: no internet but the objects pods\' webhook deliveries, no OTLP while tracing is off', () => {
      const { can } = network(docs())
      for (const from of COMPONENTS) {
        expect(can(from, external('93.184.216.34'), tcp(443)), from).toBe(from === 'objects')
        expect(can(from, external('93.184.216.34'), tcp(27017)), from).toBe(false)
        expect(can(from, external('10.0.0.9'), tcp(4318)), from).toBe(false)
      }
    })

    it('metrics ports answer pods of the monitoring namespace, not the neighbours', () => {
      const { can, pods } = network(docs())
      for (const c of COMPONENTS) {
        const port = must(must(must(pods[c]).ports).metrics)
        expect(can(PROMETHEUS, c, tcp(port)), c).toBe(true)
        expect(can(NEIGHBOUR, c, tcp(port)), c).toBe(false)
      }
    })

    it('the helm test pod reaches the gateway (and DNS), nothing else', () => {
      const { can } = network(docs())
      expect(can('test', 'gateway', tcp(8080))).toBe(true)
      expect(can('test', 'auth', tcp(50052))).toBe(false)
      expect(can('test', external('93.184.216.34'), tcp(443))).toBe(false)
    })
  })

  describe('narrowed peers (ci/full-values.yaml)', () => {
    const docs = () => render([must(CI_VALUES.full)])

    it('the gateway accepts its ingress controller\'s namespace and the helm test pod, no one else', () => {
      const { can } = network(docs())
      expect(can(elsewhere('ingress-nginx'), 'gateway', tcp(8080))).toBe(true)
      expect(can('test', 'gateway', tcp(8080))).toBe(true)
      expect(can(elsewhere('somewhere'), 'gateway', tcp(8080))).toBe(false)
      expect(can(NEIGHBOUR, 'gateway', tcp(8080))).toBe(false)
    })

    it('metrics follow networkPolicy.metrics.ingressFrom (namespace and pod together)', () => {
      const { can } = network(docs())
      expect(can(PROMETHEUS, 'objects', tcp(9100))).toBe(true)
      expect(can(elsewhere('monitoring', { app: 'grafana' }), 'objects', tcp(9100))).toBe(false)
    })

    it('PostgreSQL and Redis only at the given peers; OTLP to the collector\'s port; extraEgress added to every pod', () => {
      const { can } = network(docs())
      expect(can('objects', external('10.20.0.7'), tcp(5432))).toBe(true)
      expect(can('objects', external('10.99.0.7'), tcp(5432))).toBe(false)
      expect(can('auth', elsewhere('redis'), tcp(6379))).toBe(true)
      expect(can('auth', external('10.20.0.7'), tcp(6379))).toBe(false)
      for (const c of COMPONENTS) {
        expect(can(c, elsewhere('observability'), tcp(4318)), c).toBe(true)
        expect(can(c, external('10.30.0.10'), tcp(443)), c).toBe(true)
        expect(can(c, external('10.30.0.11'), tcp(443)), c).toBe(false)
      }
    })
  })

  it('the OTLP port comes from otel.endpoint (https without a port: 443)', () => {
    const { can } = network(renderWith({ otel: { enabled: true, endpoint: 'https://otlp.example.com' } }))
    expect(can('objects', external('10.0.0.9'), tcp(443))).toBe(true)
    expect(can('objects', external('10.0.0.9'), tcp(4318))).toBe(false)
  })

  it('store=sqlite and Redis off: no database egress at all', () => {
    const { can } = network(render([must(CI_VALUES.sqlite)]))
    for (const c of COMPONENTS) {
      for (const port of [5432, 27017, 6379]) expect(can(c, external('10.0.0.5'), tcp(port)), `${c} ${port}`).toBe(false)
    }
  })

  it('store=mongodb: backends reach MongoDB (27017), not PostgreSQL', () => {
    const { can } = network(render([must(CI_VALUES.mongodb)]))
    for (const backend of ['objects', 'auth', 'poster']) {
      expect(can(backend, external('10.0.0.5'), tcp(27017)), backend).toBe(true)
      expect(can(backend, external('10.0.0.5'), tcp(5432)), backend).toBe(false)
    }
    expect(can('gateway', external('10.0.0.5'), tcp(27017))).toBe(false)
  })

  it('a chart-made CloudNativePG Cluster: backends reach its instances on 5432 and no other address', () => {
    const { can } = network(render([must(CI_VALUES.cnpg)]))
    const instance: Endpoint = { namespace: NAMESPACE, labels: { 'cnpg.io/cluster': 'demo-content-api-pg', 'cnpg.io/instanceRole': 'primary' } }
    const other: Endpoint = { namespace: NAMESPACE, labels: { 'cnpg.io/cluster': 'someone-elses' } }
    for (const backend of ['objects', 'auth', 'poster']) {
      expect(can(backend, instance, tcp(5432)), backend).toBe(true)
      expect(can(backend, other, tcp(5432)), backend).toBe(false)
      expect(can(backend, external('10.0.0.5'), tcp(5432)), backend).toBe(false)
    }
    expect(can('gateway', instance, tcp(5432))).toBe(false)
  })

  it('webhook receivers: the objects pods reach public addresses on 443 and 80, never private ones; no other pod does', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const { can } = network(docs)
    for (const ip of ['93.184.216.34', '8.8.8.8']) {
      expect(can('objects', external(ip), tcp(443)), ip).toBe(true)
      expect(can('objects', external(ip), tcp(80)), ip).toBe(true)
      expect(can('objects', external(ip), tcp(8443)), ip).toBe(false)
      for (const c of COMPONENTS.filter((x) => x !== 'objects')) expect(can(c, external(ip), tcp(443)), `${c} ${ip}`).toBe(false)
    }
    for (const ip of ['10.1.2.3', '172.16.0.9', '192.168.1.1', '169.254.169.254', '127.0.0.1', '100.64.0.1']) {
      expect(can('objects', external(ip), tcp(443)), ip).toBe(false)
    }
    const env = Object.fromEntries((containerOf(deploymentOf(docs, 'objects')).env as { name: string, value?: string }[]).map((e) => [e.name, e.value]))
    expect(env).toMatchObject({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_RETRY_HOURS: '24', CHANGE_RETENTION_HOURS: '168', SQLITE_CACHE_MB: '64' })
  })

  it('networkPolicy.enabled false renders none', () => {
    expect(ofKind(renderWith({ networkPolicy: { enabled: false } }), 'NetworkPolicy')).toEqual([])
  })

  it('the allowed flows follow the ports of values, not fixed numbers', () => {
    const docs = renderWith({ objects: { port: 7001 }, gateway: { port: 9000 } })
    const { can } = network(docs)
    expect(containerOf(deploymentOf(docs, 'objects')).ports[0].containerPort).toBe(7001)
    expect(can('gateway', 'objects', tcp(7001))).toBe(true)
    expect(can('gateway', 'objects', tcp(50051))).toBe(false)
    expect(can('test', 'gateway', tcp(9000))).toBe(true)
  })
})
