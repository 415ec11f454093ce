/**
 * store=sqlite keeps each backend's store on a PersistentVolumeClaim the chart makes (or one named); only
 * persistence.enabled=false, said on purpose, leaves the files in an emptyDir. Other stores need no claim.
 */
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim'
import { describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, deploymentOf, helmSkipReason, notes, ofKind, render, skipTitle, templateRaw, valuesFile, type Doc, type RenderedDoc,
} from './support/chart.js'
import { must } from './support/must.js'

const sqlite = (overlay: object = {}) => [must(CI_VALUES.sqlite), valuesFile(overlay)]
const dataVolume = (docs: RenderedDoc[], component: string): Doc =>
  must((deploymentOf(docs, component).spec.template.spec.volumes as Doc[]).find((v) => v.name === 'data'))
const claims = (docs: RenderedDoc[]) => ofKind(docs, 'PersistentVolumeClaim')

describe.skipIf(helmSkipReason)(`persistence${skipTitle}`, () => {
  it('store=sqlite: a claim per backend (ReadWriteOnce, persistence.size), each mounted at its one pod\'s /data', () => {
    const docs = render(sqlite())
    expect(claims(docs).map((c) => c.metadata.name).sort()).toEqual(BACKENDS.map((b) => `demo-content-api-${b}-data`).sort())
    for (const backend of BACKENDS) {
      const claim = must(claims(docs).find((c) => c.metadata.name === `demo-content-api-${backend}-data`))
      new PersistentVolumeClaim(claim as ConstructorParameters<typeof PersistentVolumeClaim>[0]).validate()
      expect(claim.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } } })
      expect(claim.metadata.labels['app.kubernetes.io/component']).toBe(backend)
      expect(dataVolume(docs, backend)).toEqual({ name: 'data', persistentVolumeClaim: { claimName: claim.metadata.name } })
      const deployment = deploymentOf(docs, backend)
      expect(deployment.spec.strategy).toEqual({ type: 'Recreate' })
      expect(deployment.spec.template.spec.containers[0].volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' })
    }
    expect((deploymentOf(docs, 'gateway').spec.template.spec.volumes as Doc[]).map((v) => v.name)).not.toContain('data')
  })

  it('storageClass, accessModes, annotations and sizes (a component\'s own, else persistence.size) come from values', () => {
    const docs = render(sqlite({
      persistence: { storageClass: 'fast', accessModes: ['ReadWriteOncePod'], size: '2Gi', annotations: { 'helm.sh/resource-policy': 'keep' } },
      poster: { persistence: { size: '50Gi' } },
    }))
    const byName = Object.fromEntries(claims(docs).map((c) => [c.metadata.labels['app.kubernetes.io/component'], c]))
    expect(must(byName.poster).spec).toEqual({ accessModes: ['ReadWriteOncePod'], storageClassName: 'fast', resources: { requests: { storage: '50Gi' } } })
    expect(must(byName.objects).spec.resources.requests.storage).toBe('2Gi')
    expect(must(byName.auth).metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' })
    // `-`: no class at all (a pre-bound volume), not the cluster's default
    const unclassed = render(sqlite({ persistence: { storageClass: '-' } }))
    for (const claim of claims(unclassed)) expect(claim.spec.storageClassName).toBe('')
  })

  it('a claim of your own (existingClaim) replaces the chart\'s for that component only', () => {
    const docs = render(sqlite({ objects: { persistence: { existingClaim: 'objects-restored' } } }))
    expect(claims(docs).map((c) => c.metadata.name).sort()).toEqual(['demo-content-api-auth-data', 'demo-content-api-poster-data'])
    expect(dataVolume(docs, 'objects').persistentVolumeClaim.claimName).toBe('objects-restored')
  })

  it('persistence.enabled=false, said on purpose: emptyDirs, and NOTES says the files are lost with the pod', () => {
    const files = sqlite({ persistence: { enabled: false } })
    const docs = render(files)
    expect(claims(docs)).toEqual([])
    for (const backend of BACKENDS) expect(dataVolume(docs, backend), backend).toEqual({ name: 'data', emptyDir: {} })
    expect(notes(files)).toContain('in an emptyDir: persistence.enabled=false, so they are\n  lost whenever a pod goes away')
    expect(notes(sqlite())).toContain('on a PersistentVolumeClaim each')
  })

  it('a read-only claim cannot hold a store: refused with store=sqlite', () => {
    const out = templateRaw(sqlite({ persistence: { accessModes: ['ReadOnlyMany'] } }))
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('persistence.accessModes must let the pod write')
  })

  it.each(['minimal', 'mongodb', 'cnpg', 'full'])('ci/%s: the store is a database, so no claim: /data only stages uploads', (name) => {
    const docs = render([must(CI_VALUES[name])])
    expect(claims(docs)).toEqual([])
    for (const backend of BACKENDS) expect(dataVolume(docs, backend), backend).toEqual({ name: 'data', emptyDir: {} })
  })
})
