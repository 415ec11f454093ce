/**
 * Calls spread over backend replicas: headless Services (DNS answers every ready pod), clients dial
 * `dns:///` names (round_robin in the services), and servers age connections out so new pods get traffic.
 */
import { describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, NAMESPACE, containerOf, deploymentOf, envValue, helmSkipReason, ofComponent, render, renderWith, skipTitle,
} from './support/chart.js'
import { must } from './support/must.js'

const DIALS: Array<[string, string, string]> = [
  ['gateway', 'OBJECTS_SERVICE_ADDR', 'objects'], ['gateway', 'AUTH_SERVICE_ADDR', 'auth'],
  ['gateway', 'POSTER_SERVICE_ADDR', 'poster'], ['poster', 'OBJECTS_SERVICE_ADDR', 'objects'],
]

describe.skipIf(helmSkipReason)(`load spreading over backend replicas${skipTitle}`, () => {
  it.each(BACKENDS)('the %s Service is headless and lists only ready pods', (component) => {
    const service = ofComponent(render([must(CI_VALUES.minimal)]), 'Service', component)
    expect(service.spec.clusterIP).toBe('None')
    expect(service.spec.publishNotReadyAddresses).toBe(false)
  })

  it('the gateway Service keeps a cluster IP (HTTP clients and the Ingress go through it)', () => {
    expect(ofComponent(render([must(CI_VALUES.minimal)]), 'Service', 'gateway').spec.clusterIP).toBeUndefined()
  })

  it.each(DIALS)('%s %s = dns:///<backend Service>.<namespace>.svc.cluster.local:<its gRPC port>', (from, variable, to) => {
    const docs = render([must(CI_VALUES.minimal)])
    const service = ofComponent(docs, 'Service', to)
    const grpc = service.spec.ports.find((p: { name: string }) => p.name === 'grpc')
    // headless: clients reach the pods directly, so the Service port must be the container port
    const containerPort = containerOf(deploymentOf(docs, to)).ports.find((p: { name: string }) => p.name === 'grpc').containerPort
    expect(grpc.port).toBe(containerPort)
    expect(envValue(containerOf(deploymentOf(docs, from)), variable))
      .toBe(`dns:///${service.metadata.name}.${NAMESPACE}.svc.cluster.local:${containerPort}`)
  })

  it('clusterDomain and the release namespace shape the addresses', () => {
    const gateway = containerOf(deploymentOf(render([must(CI_VALUES.full)]), 'gateway'))
    expect(envValue(gateway, 'AUTH_SERVICE_ADDR')).toBe('dns:///content-auth.content.svc.k8s.example.internal:50052')
  })

  it.each(BACKENDS)('%s ages client connections out after process.grpcMaxConnectionAgeMs (default 60000)', (component) => {
    expect(envValue(containerOf(deploymentOf(render([must(CI_VALUES.minimal)]), component)), 'GRPC_MAX_CONNECTION_AGE_MS')).toBe('60000')
    expect(envValue(containerOf(deploymentOf(renderWith({ process: { grpcMaxConnectionAgeMs: 15000 } }), component)), 'GRPC_MAX_CONNECTION_AGE_MS'))
      .toBe('15000')
  })

  it('the gateway serves no gRPC, so it gets no connection age', () => {
    expect(envValue(containerOf(deploymentOf(render([must(CI_VALUES.minimal)]), 'gateway')), 'GRPC_MAX_CONNECTION_AGE_MS')).toBeUndefined()
  })
})
