/**
 * What bitnami / `helm create` users set per component: images, spread, scheduling, extra env and
 * volumes, pod labels and annotations.
 */
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, containerOf, deploymentOf, helmSkipReason, ofKind, render, renderWith, selectorOf, skipTitle,
  type Doc,
} from './support/chart.js'
import { must } from './support/must.js'

const podSpec = (d: Doc) => d.spec.template.spec
const DIGEST = `sha256:${'ab'.repeat(32)}`

describe.skipIf(helmSkipReason)(`per-component images${skipTitle}`, () => {
  it('default: <image.registry>/<image.repository>-<component>:<appVersion>', () => {
    const docs = render([must(CI_VALUES.minimal)])
    for (const c of COMPONENTS) expect(containerOf(deploymentOf(docs, c)).image).toBe(`registry.example.com/content/content-api-${c}:0.1.0`)
  })

  it('a component overrides registry, repository and tag; the others keep the global image', () => {
    const docs = renderWith({ image: { tag: '2.0.0' }, auth: { image: { registry: 'mirror.example.com', repository: 'team/auth', tag: '2.0.1' } } })
    expect(containerOf(deploymentOf(docs, 'auth')).image).toBe('mirror.example.com/team/auth:2.0.1')
    expect(containerOf(deploymentOf(docs, 'objects')).image).toBe('registry.example.com/content/content-api-objects:2.0.0')
  })

  it('a digest wins over any tag: repository@sha256:…', () => {
    const docs = renderWith({ image: { tag: '2.0.0' }, poster: { image: { tag: '2.0.1', digest: DIGEST } } })
    expect(containerOf(deploymentOf(docs, 'poster')).image).toBe(`registry.example.com/content/content-api-poster@${DIGEST}`)
  })
})

describe.skipIf(helmSkipReason)(`topology spread${skipTitle}`, () => {
  it.each(COMPONENTS)('%s spreads by zone and by node (ScheduleAnyway), over its own pods', (component) => {
    const docs = render([must(CI_VALUES.minimal)])
    const selector = { matchLabels: selectorOf(docs, component) }
    expect(podSpec(deploymentOf(docs, component)).topologySpreadConstraints).toEqual([
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: selector },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: selector },
    ])
  })

  it('a list replaces the default (keeping a given labelSelector); [] turns spreading off', () => {
    const own = { maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { x: 'y' } } }
    const docs = renderWith({ objects: { topologySpreadConstraints: [own] }, auth: { topologySpreadConstraints: [] } })
    expect(podSpec(deploymentOf(docs, 'objects')).topologySpreadConstraints).toEqual([own])
    expect(podSpec(deploymentOf(docs, 'auth'))).not.toHaveProperty('topologySpreadConstraints')
  })
})

describe.skipIf(helmSkipReason)(`pod labels, annotations and scheduling${skipTitle}`, () => {
  it('podLabels go on the pods only: not on the Deployment, not in its selector', () => {
    const docs = renderWith({ gateway: { podLabels: { 'example.com/tier': 'edge' } } })
    const gateway = deploymentOf(docs, 'gateway')
    expect(gateway.spec.template.metadata.labels['example.com/tier']).toBe('edge')
    expect(gateway.metadata.labels).not.toHaveProperty('example.com/tier')
    expect(gateway.spec.selector.matchLabels).not.toHaveProperty('example.com/tier')
    expect(deploymentOf(docs, 'objects').spec.template.metadata.labels).not.toHaveProperty('example.com/tier')
  })

  it('podAnnotations join the chart\'s checksums', () => {
    const annotations = deploymentOf(renderWith({ objects: { podAnnotations: { 'example.com/a': 'b' } } }), 'objects').spec.template.metadata.annotations
    expect(annotations).toEqual({ 'example.com/a': 'b', 'checksum/secret': expect.stringMatching(/^[0-9a-f]{64}$/) })
  })

  it('priorityClassName, nodeSelector, tolerations and affinity reach the pod of their component only', () => {
    const toleration = { key: 'dedicated', operator: 'Equal', value: 'media', effect: 'NoSchedule' }
    const affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] } }] } }
    const docs = renderWith({
      poster: { priorityClassName: 'media', nodeSelector: { 'kubernetes.io/arch': 'amd64' }, tolerations: [toleration], affinity },
    })
    expect(podSpec(deploymentOf(docs, 'poster'))).toMatchObject({
      priorityClassName: 'media', nodeSelector: { 'kubernetes.io/arch': 'amd64' }, tolerations: [toleration], affinity,
    })
    for (const key of ['priorityClassName', 'nodeSelector', 'tolerations', 'affinity']) {
      expect(podSpec(deploymentOf(docs, 'auth')), key).not.toHaveProperty(key)
    }
  })
})

describe.skipIf(helmSkipReason)(`extra env, envFrom and volumes${skipTitle}`, () => {
  it.each(COMPONENTS)('%s: extraEnv comes after the chart\'s own variables; extraEnvFrom, extraVolumes and mounts are added', (component) => {
    const extraEnv = [{ name: 'EXTRA_ONE', value: '1' }, { name: 'EXTRA_REF', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }]
    const docs = renderWith({
      [component]: {
        extraEnv,
        extraEnvFrom: [{ secretRef: { name: 'more' } }],
        extraVolumes: [{ name: 'certs', secret: { secretName: 'certs' } }],
        extraVolumeMounts: [{ name: 'certs', mountPath: '/certs', readOnly: true }],
      },
    })
    const deployment = deploymentOf(docs, component)
    const c = containerOf(deployment)
    const base = containerOf(deploymentOf(render([must(CI_VALUES.minimal)]), component))
    expect(c.env).toEqual([...base.env, ...extraEnv])
    expect(c.envFrom).toEqual([{ secretRef: { name: 'more' } }])
    expect(c.volumeMounts).toEqual([...base.volumeMounts, { name: 'certs', mountPath: '/certs', readOnly: true }])
    expect(podSpec(deployment).volumes).toContainEqual({ name: 'certs', secret: { secretName: 'certs' } })
    expect(ofKind(docs, 'Deployment').filter((d) => containerOf(d).envFrom !== undefined)).toHaveLength(1)
  })
})
