import { beforeAll, describe, expect, it } from 'vitest'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount'
import {
  CI_VALUES, containerOf, deploymentOf, envOf, render, renderRaw, rendererSkipReason, rendererState, valuesFile,
  type Doc, type RenderedDoc,
} from './support/chart.js'

const MODELS: Record<string, new (doc: Doc) => { validate: () => void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/ServiceAccount': ServiceAccount,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
}

const kinds = (docs: RenderedDoc[]) => docs.map((d) => `${d.doc.kind}/${d.doc.metadata.name}`).sort()

it('the chart renderer builds, or is absent for a named reason (a failed build is a failure)', () => {
  if (rendererState.kind === 'broken') expect.fail(rendererState.error)
  expect(['ready', 'absent']).toContain(rendererState.kind)
})

describe.skipIf(rendererSkipReason)(`chart renders${rendererSkipReason ? ` (skipped: ${rendererSkipReason})` : ''}`, () => {
  it('values.yaml alone refuses to render and lists every missing secret at once', () => {
    const out = renderRaw()
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('secrets.jwtSecret is required')
    expect(out.stderr).toContain('secrets.mediaSigningKey is required')
    expect(out.stderr).toContain('mongodb.url is required')
    expect(out.stderr).toContain('redis.url is required')
  })

  const expected = {
    minimal: [
      'ConfigMap/demo-content-api-gateway-config', 'Deployment/demo-content-api-auth', 'Deployment/demo-content-api-gateway',
      'Deployment/demo-content-api-objects', 'Deployment/demo-content-api-poster', 'Secret/demo-content-api',
      'Service/demo-content-api-auth', 'Service/demo-content-api-gateway', 'Service/demo-content-api-objects',
      'Service/demo-content-api-poster', 'ServiceAccount/demo-content-api',
    ],
    full: [
      'ConfigMap/content-gateway-config', 'Deployment/content-auth', 'Deployment/content-gateway', 'Deployment/content-objects',
      'Deployment/content-poster', 'Ingress/content', 'NetworkPolicy/content-auth', 'NetworkPolicy/content-gateway',
      'NetworkPolicy/content-objects', 'NetworkPolicy/content-poster', 'Service/content-auth', 'Service/content-gateway',
      'Service/content-objects', 'Service/content-poster', 'ServiceAccount/content-api',
    ],
  }

  describe.each(Object.keys(CI_VALUES) as Array<keyof typeof CI_VALUES>)('ci/%s-values.yaml', (name) => {
    let docs: RenderedDoc[] = []
    beforeAll(() => { docs = render([CI_VALUES[name]]) })

    it('renders exactly the expected resources', () => {
      expect(kinds(docs)).toEqual(expected[name])
    })

    it('every document passes kubernetes-models validation', () => {
      for (const { source, doc } of docs) {
        const Model = MODELS[`${doc.apiVersion}/${doc.kind}`]
        expect(Model, `${source}: no model for ${doc.apiVersion}/${doc.kind}`).toBeDefined()
        expect(() => new Model!(doc).validate(), source).not.toThrow()
      }
    })

    it('no document sets metadata.namespace (helm decides)', () => {
      expect(docs.filter((d) => d.doc.metadata.namespace !== undefined).map((d) => d.source)).toEqual([])
    })

    it('NOTES.txt renders and states the storage requirements', () => {
      const notes = renderRaw([CI_VALUES[name]], { notes: true })
      expect(notes.status, notes.stderr).toBe(0)
      expect(notes.stdout).toContain('replica set')
      expect(notes.stdout).toContain('appendonly yes')
      expect(notes.stdout).toContain('maxmemory-policy noeviction')
    })
  })

  it('kubernetes-models catches a wrongly typed field (the check can fail)', () => {
    const deployment = deploymentOf(render([CI_VALUES.minimal]), 'gateway')
    expect(() => new Deployment({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } }).validate())
      .toThrow(/replicas/)
  })

  describe('combinations the schema cannot see', () => {
    const secrets = CI_VALUES.minimal

    it('store=sqlite with two replicas of a backend is refused', () => {
      const out = renderRaw([secrets, valuesFile({ store: 'sqlite', objects: { replicaCount: 2 }, auth: { replicaCount: 1 } })])
      expect(out.status).not.toBe(0)
      expect(out.stderr).toContain('objects.replicaCount must be 0 or 1 with store=sqlite')
      // the local media directory has one owner too
      expect(out.stderr).toContain('poster.replicaCount must be 0 or 1 with store=sqlite')
    })

    it('store=sqlite with one replica each renders Recreate rollouts and no MongoDB wiring', () => {
      const docs = render([secrets, valuesFile({ store: 'sqlite', objects: { replicaCount: 1 }, auth: { replicaCount: 1 }, poster: { replicaCount: 1 } })])
      for (const component of ['objects', 'auth', 'poster']) {
        const deployment = deploymentOf(docs, component)
        expect(deployment.spec.strategy).toEqual({ type: 'Recreate' })
        expect(envOf(containerOf(deployment)).get('STORE')?.value).toBe('sqlite')
        expect(envOf(containerOf(deployment)).has('MONGODB_URL')).toBe(false)
      }
      const secret = docs.find((d) => d.doc.kind === 'Secret')!.doc
      expect(Object.keys(secret.data).sort()).toEqual(['JWT_SECRET', 'MEDIA_SIGNING_KEY', 'REDIS_URL'])
    })

    it('a grace period that does not cover preStop + shutdown timeout is refused', () => {
      const out = renderRaw([secrets, valuesFile({ process: { shutdownTimeoutMs: 20000, terminationGracePeriodSeconds: 20 } })])
      expect(out.status).not.toBe(0)
      expect(out.stderr).toContain('terminationGracePeriodSeconds must exceed')
    })

    it('more than one auth replica without Redis is refused (revocations must be shared)', () => {
      const out = renderRaw([secrets, valuesFile({ redis: { enabled: false } })])
      expect(out.status).not.toBe(0)
      expect(out.stderr).toContain('auth.replicaCount > 1 needs redis.enabled')
    })

    it('a JWT secret shorter than 32 bytes is refused', () => {
      const out = renderRaw([secrets, valuesFile({ secrets: { jwtSecret: 'short' } })])
      expect(out.status).not.toBe(0)
      expect(out.stderr).toContain('at least 32 bytes')
    })

    it('a media signing key shorter than 32 bytes is refused', () => {
      const out = renderRaw([secrets, valuesFile({ secrets: { mediaSigningKey: 'short' } })])
      expect(out.status).not.toBe(0)
      expect(out.stderr).toContain('secrets.mediaSigningKey must be at least 32 bytes')
    })
  })
})
