/** `helm template` over each ci/*-values.yaml: the resources, their Kubernetes shape, NOTES.txt. */
import { beforeAll, describe, expect, it } from 'vitest'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { Cluster } from '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1/Cluster'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Job } from 'kubernetes-models/batch/v1/Job'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim'
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
  'batch/v1/Job': Job,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  // the operator's CRD schema (CloudNativePG 1.24), as @kubernetes-models/cloudnative-pg generates it
  'postgresql.cnpg.io/v1/Cluster': Cluster as unknown as new (doc: Doc) => { validate: () => void },
}
// Prometheus Operator kinds have no model here; chart-metrics.test.ts checks their fields.
const CRDS = new Set(['monitoring.coreos.com/v1/ServiceMonitor', 'monitoring.coreos.com/v1/PrometheusRule'])

const kinds = (docs: RenderedDoc[]) => docs.map((d) => `${d.doc.kind}/${d.doc.metadata.name}`).sort()

describe.skipIf(helmSkipReason)(`helm template${skipTitle}`, () => {
  const policies = (prefix: string, ...more: string[]) =>
    ['default-deny', 'gateway', 'objects', 'auth', 'poster', 'test', ...more].map((c) => `NetworkPolicy/${prefix}-${c}`)
  const backends = (prefix: string, kind: string) => ['auth', 'objects', 'poster'].map((c) => `${kind}/${prefix}-${c}`)
  const services = (prefix: string) => ['auth', 'gateway', 'objects', 'poster'].map((c) => `Service/${prefix}-${c}`)
  const deployments = (prefix: string) => ['auth', 'gateway', 'objects', 'poster'].map((c) => `Deployment/${prefix}-${c}`)
  const pdbs = (prefix: string) => ['auth', 'gateway', 'objects', 'poster'].map((c) => `PodDisruptionBudget/${prefix}-${c}`)
  // the migration Job and what it needs, made as hooks ahead of it
  const migration = (prefix: string, secret = true) => [
    `Job/${prefix}-migrate`, `NetworkPolicy/${prefix}-migrate`, `ServiceAccount/${prefix}-migrate`, ...(secret ? [`Secret/${prefix}-migrate`] : []),
  ]
  const d = 'demo-content-api'
  const common = (prefix: string) => [`ConfigMap/${prefix}-gateway-config`, ...deployments(prefix), ...services(prefix), `Pod/${prefix}-test`]
  const expected: Record<string, string[]> = {
    minimal: [...common(d), ...policies(d), ...pdbs(d), `Secret/${d}`, `ServiceAccount/${d}`, ...migration(d)],
    mongodb: [...common(d), ...policies(d), ...pdbs(d), `Secret/${d}`, `ServiceAccount/${d}`, ...migration(d)],
    // every secret from Secrets named per value: the chart makes none
    cnpg: [...common(d), ...policies(d, 'admin'), ...pdbs(d), `ServiceAccount/${d}`, ...migration(d, false),
      `Cluster/${d}-pg`, `Job/${d}-admin-bootstrap`],
    full: [
      ...common('content'), ...policies('content'), ...pdbs('content'), ...migration('content', false),
      'ConfigMap/content-dashboard', 'HorizontalPodAutoscaler/content-gateway', 'HorizontalPodAutoscaler/content-poster',
      'Ingress/content', 'PrometheusRule/content', 'ServiceAccount/content-api', 'ServiceMonitor/content',
    ],
    // one pod per backend, each with its claim; no migration Job (each service migrates its file as it opens it)
    sqlite: [...common(d), ...policies(d), `PodDisruptionBudget/${d}-gateway`, `Secret/${d}`, `ServiceAccount/${d}`,
      ...backends(d, 'PersistentVolumeClaim').map((k) => `${k}-data`)],
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

    it('only the monitoring objects may name a namespace (helm decides the rest)', () => {
      const named = docs.filter((d) => d.doc.metadata.namespace !== undefined).map((d) => `${d.doc.kind}/${d.doc.metadata.name}`)
      expect(named.filter((k) => !/^(ServiceMonitor|PrometheusRule)\/|^ConfigMap\/.*-dashboard$/.test(k))).toEqual([])
    })

    it('NOTES.txt renders, states the storage requirements and how to run helm test', () => {
      const text = notes([must(CI_VALUES[name])])
      const says: Record<string, string[]> = {
        sqlite: ['SQLite files live in /data of each backend pod, on a PersistentVolumeClaim each', 'Redis is disabled', 'migrates its store as it starts'],
        mongodb: ['replica set', 'appendonly yes', 'maxmemory-policy noeviction', 'Schema migrations run in the Job demo-content-api-migrate before install and upgrade'],
        minimal: ['share one PostgreSQL database', 'appendonly yes', 'Schema migrations run in the Job demo-content-api-migrate before install and upgrade'],
        cnpg: ['CloudNativePG Cluster demo-content-api-pg (3 instances,\n  1 synchronous standby)', 'Schema migrations run in the Job demo-content-api-migrate before upgrade'],
        full: ['share one PostgreSQL database', 'Schema migrations run in the Job content-migrate before install and upgrade'],
      }
      for (const phrase of must(says[name])) expect(text).toContain(phrase)
      expect(text).toContain(`helm test demo --namespace content`)
    })
  })

  it('kubernetes-models catches a wrongly typed field (the check can fail)', () => {
    const deployment = deploymentOf(render([must(CI_VALUES.minimal)]), 'gateway')
    expect(() => new Deployment({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } }).validate())
      .toThrow(/replicas/)
  })
})
