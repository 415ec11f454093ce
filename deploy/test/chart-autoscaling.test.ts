/** HorizontalPodAutoscalers and PodDisruptionBudgets per component. */
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, componentOf, deploymentOf, helmSkipReason, ofComponent, ofKind, render, renderWith, selectorOf, skipTitle,
} from './support/chart.js'
import { must } from './support/must.js'

describe.skipIf(helmSkipReason)(`autoscaling${skipTitle}`, () => {
  it('off by default: no HPA, and each Deployment sets replicas', () => {
    const docs = render([must(CI_VALUES.minimal)])
    expect(ofKind(docs, 'HorizontalPodAutoscaler')).toEqual([])
    for (const c of COMPONENTS) expect(deploymentOf(docs, c).spec.replicas, c).toBe(2)
  })

  it.each(COMPONENTS)('%s: an HPA on CPU targets its Deployment, which then leaves replicas to it', (component) => {
    const docs = renderWith({ [component]: { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 9, targetCPUUtilizationPercentage: 65 } } })
    const hpa = ofComponent(docs, 'HorizontalPodAutoscaler', component)
    const deployment = deploymentOf(docs, component)
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name })
    expect([hpa.spec.minReplicas, hpa.spec.maxReplicas]).toEqual([3, 9])
    expect(hpa.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } } },
    ])
    expect(deployment.spec).not.toHaveProperty('replicas')
    // the others keep their replica count
    for (const other of COMPONENTS.filter((c) => c !== component)) expect(deploymentOf(docs, other).spec.replicas).toBe(2)
  })

  it('adds the memory target, a custom Pods metric and behavior when given', () => {
    const hpa = ofComponent(render([must(CI_VALUES.full)]), 'HorizontalPodAutoscaler', 'gateway')
    expect(hpa.spec.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } } },
      { type: 'Pods', pods: { metric: { name: 'http_server_requests_per_second' }, target: { type: 'AverageValue', averageValue: '200' } } },
    ])
    expect(hpa.spec.behavior).toEqual({ scaleDown: { stabilizationWindowSeconds: 300 } })
  })
})

describe.skipIf(helmSkipReason)(`PodDisruptionBudgets${skipTitle}`, () => {
  it('one per component running more than one pod, selecting exactly its pods, maxUnavailable 1 by default', () => {
    const docs = render([must(CI_VALUES.minimal)])
    for (const c of COMPONENTS) {
      const pdb = ofComponent(docs, 'PodDisruptionBudget', c)
      expect(pdb.spec, c).toEqual({ maxUnavailable: 1, selector: { matchLabels: selectorOf(docs, c) } })
    }
  })

  it('none for a component with one pod (it would block node drains or mean nothing)', () => {
    const docs = render([must(CI_VALUES.sqlite)])
    expect(ofKind(docs, 'PodDisruptionBudget').map(componentOf)).toEqual(['gateway'])
  })

  it('one for an autoscaled component whatever replicaCount says', () => {
    const docs = renderWith({ gateway: { replicaCount: 1, autoscaling: { enabled: true } }, objects: { replicaCount: 1 } })
    expect(ofKind(docs, 'PodDisruptionBudget').map(componentOf).sort()).toEqual(['auth', 'gateway', 'poster'])
  })

  it('minAvailable wins over maxUnavailable; pdb.enabled false renders none', () => {
    const docs = renderWith({ objects: { pdb: { minAvailable: '50%' } }, auth: { pdb: { enabled: false } } })
    expect(ofComponent(docs, 'PodDisruptionBudget', 'objects').spec).toEqual({ minAvailable: '50%', selector: { matchLabels: selectorOf(docs, 'objects') } })
    expect(ofKind(docs, 'PodDisruptionBudget').map(componentOf)).not.toContain('auth')
  })
})
