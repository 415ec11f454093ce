/** `helm template` over each ci/*-values.yaml: the resources, their Kubernetes shape, NOTES.txt. */
import { beforeAll, describe, expect, it } from 'vitest'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Pod } from 'kubernetes-models/v1/Pod'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount'
import {
  CI_VALUES, deploymentOf, helmSkipReason, notes, render, skipTitle, type Doc, type RenderedDoc,
} from './support/chart.js'
import { must } from './support/must.js'

const MODELS: Record<string, new (doc: Doc) => { validate: () => void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/ServiceAccount': ServiceAccount,
  'v1/Pod': Pod,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
}
// Prometheus Operator kinds have no model here; chart-metrics.test.ts checks their fields.
const CRDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor', 'monitoring.coreos.com/v1/PrometheusRule'])

const kinds = (docs: RenderedDoc[]) => docs.map((d) => `${d.doc.kind}/${d.doc.metadata.name}`).sort()

describe.skipIf(helmSkipReason)(`helm template${skipTitle}`, () => {
  const policies = (prefix: string) => ['default-deny', 'gateway', 'objects', 'auth', 'poster', 'test'].map((c) => `NetworkPolicy/${prefix}-${c}`)
  const expected: Record<string, string[]> = {
    minimal: [
      'ConfigMap/demo-content-api-gateway-config', 'Deployment/demo-content-api-auth', 'Deployment/demo-content-api-gateway',
      'Deployment/demo-content-api-objects', 'Deployment/demo-content-api-poster', ...policies('demo-content-api'),
      'Pod/demo-content-api-test', 'PodDisruptionBudget/demo-content-api-auth', 'PodDisruptionBudget/demo-content-api-gateway',
      'PodDisruptionBudget/demo-content-api-objects', 'PodDisruptionBudget/demo-content-api-poster', 'Secret/demo-content-api',
      'Service/demo-content-api-auth', 'Service/demo-content-api-gateway', 'Service/demo-content-api-objects',
      'Service/demo-content-api-poster', 'ServiceAccount/demo-content-api',
    ],
    full: [
      'ConfigMap/content-gateway-config', 'Deployment/content-auth', 'Deployment/content-gateway', 'Deployment/content-objects',
      'Deployment/content-poster', 'HorizontalPodAutoscaler/content-gateway', 'HorizontalPodAutoscaler/content-poster',
      'Ingress/content', ...policies('content'), 'Pod/content-test',
      'PodDisruptionBudget/content-auth', 'PodDisruptionBudget/content-gateway', 'PodDisruptionBudget/content-objects',
      'PodDisruptionBudget/content-poster', 'PrometheusRule/content', 'Service/content-auth', 'Service/content-gateway',
      'Service/content-objects', 'Service/content-poster', 'ServiceAccount/content-api', 'ServiceMonitor/content',
    ],
    sqlite: [
      'ConfigMap/demo-content-api-gateway-config', 'Deployment/demo-content-api-auth', 'Deployment/demo-content-api-gateway',
      'Deployment/demo-content-api-objects', 'Deployment/demo-content-api-poster', ...policies('demo-content-api'),
      'Pod/demo-content-api-test', 'PodDisruptionBudget/demo-content-api-gateway', 'Secret/demo-content-api',
      'Service/demo-content-api-auth', 'Service/demo-content-api-gateway', 'Service/demo-content-api-objects',
      'Service/demo-content-api-poster', 'ServiceAccount/demo-content-api',
    ],
  }

  it('has an expectation for every ci values file', () => {
    expect(Object.keys(CI_VALUES).sort()).toEqual(Object.keys(expected).sort())
  })

  describe.each(Object.keys(CI_VALUES))('ci/%s-values.yaml', (name) => {
    let docs: RenderedDoc[] = []
    beforeAll(() => { docs = render([must(CI_VALUES[name])]) })

    it('renders exactly the expected resources', () => {
      expect(kinds(docs)).toEqual(must(expected[name]).sort())
    })

    it('every document passes kubernetes-models validation', () => {
      for (const { source, doc } of docs) {
        const kind = `${doc.apiVersion}/${doc.kind}`
        if (CRDS.has(kind)) continue
        const Model = must(MODELS[kind], `${source}: a model for ${kind}`)
        expect(() => new Model(doc).validate(), source).not.toThrow()
      }
    })

    it('only the Prometheus Operator objects may name a namespace (helm decides the rest)', () => {
      const named = docs.filter((d) => d.doc.metadata.namespace !== undefined).map((d) => d.doc.kind)
      expect(named.filter((k) => k !== 'ServiceMonitor' && k !== 'PrometheusRule')).toEqual([])
    })

    it('NOTES.txt renders, states the storage requirements and how to run helm test', () => {
      const text = notes([must(CI_VALUES[name])])
      if (name === 'sqlite') {
        expect(text).toContain('SQLite files live in /data')
        expect(text).toContain('Redis is disabled')
      } else {
        expect(text).toContain('replica set')
        expect(text).toContain('appendonly yes')
        expect(text).toContain('maxmemory-policy noeviction')
      }
      expect(text).toContain(`helm test demo --namespace content`)
    })
  })

  it('kubernetes-models catches a wrongly typed field (the check can fail)', () => {
    const deployment = deploymentOf(render([must(CI_VALUES.minimal)]), 'gateway')
    expect(() => new Deployment({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } }).validate())
      .toThrow(/replicas/)
  })
})
