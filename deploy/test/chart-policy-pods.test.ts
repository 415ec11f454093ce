/** helm-unittest-style policy over every rendered Deployment, for each CI values file. */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, containerOf, deploymentOf, envOf, envValue, ofKind, render, rendererSkipReason,
  type Doc, type RenderedDoc,
} from './support/chart.js'
import { readYaml } from './support/values.js'

const skipTitle = rendererSkipReason ? ` (skipped: ${rendererSkipReason})` : ''
const BACKEND_PORTS: Record<string, number> = { objects: 50051, auth: 50052, poster: 50053 }

describe.skipIf(rendererSkipReason)(`Deployment policy${skipTitle}`, () => {
  describe.each(Object.keys(CI_VALUES) as Array<keyof typeof CI_VALUES>)('ci/%s-values.yaml', (name) => {
    let docs: RenderedDoc[] = []
    let deployments: Doc[] = []
    beforeAll(() => {
      docs = render([CI_VALUES[name]])
      deployments = ofKind(docs, 'Deployment')
    })
    const each = (check: (d: Doc, c: Doc, component: string) => void) => () => {
      expect(deployments.map((d) => d.metadata.labels['app.kubernetes.io/component']).sort())
        .toEqual([...COMPONENTS].sort())
      for (const d of deployments) check(d, containerOf(d), d.metadata.labels['app.kubernetes.io/component'])
    }

    it('has readiness and liveness probes', each((d, c) => {
      expect(c.readinessProbe, d.metadata.name).toBeDefined()
      expect(c.livenessProbe, d.metadata.name).toBeDefined()
    }))

    it('sets cpu/memory requests and a memory limit', each((d, c) => {
      expect(c.resources.requests, d.metadata.name).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }))
      expect(c.resources.limits?.memory, d.metadata.name).toBeDefined()
    }))

    it('runs non-root, read-only, without privileges, under RuntimeDefault seccomp', each((d, c) => {
      const pod = d.spec.template.spec.securityContext
      expect(pod.runAsNonRoot).toBe(true)
      expect(pod.seccompProfile).toEqual({ type: 'RuntimeDefault' })
      expect(c.securityContext).toEqual(expect.objectContaining({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        seccompProfile: { type: 'RuntimeDefault' },
      }))
      expect(c.securityContext.capabilities.drop).toContain('ALL')
      expect(c.securityContext.privileged).not.toBe(true)
    }))

    it('pulls <registry>/<repository>-<component>:<fixed tag>, never :latest', each((_d, c, component) => {
      expect(c.image).toMatch(new RegExp(`^[^:]+/[^:]+-${component}:[\\w.-]+$`))
      expect(c.image).not.toMatch(/:latest$/)
    }))

    it('selects its own pods: selector ⊆ pod labels, and names its component', each((d) => {
      const labels = d.spec.template.metadata.labels
      for (const [k, v] of Object.entries(d.spec.selector.matchLabels as Record<string, string>)) expect(labels[k]).toBe(v)
      expect(d.spec.selector.matchLabels['app.kubernetes.io/component']).toBe(labels['app.kubernetes.io/component'])
    }))

    it('gives SIGTERM handling its time: grace > preStop sleep + SHUTDOWN_TIMEOUT_MS', each((d, c) => {
      const shutdownMs = Number(envValue(c, 'SHUTDOWN_TIMEOUT_MS'))
      const preStop = Number(c.lifecycle.preStop.exec.command[1])
      expect(shutdownMs).toBeGreaterThan(0)
      expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs + preStop * 1000)
    }))

    it('mounts an emptyDir at /tmp (read-only root filesystem)', each((d, c) => {
      const mount = c.volumeMounts.find((m: Doc) => m.mountPath === '/tmp')
      expect(mount, d.metadata.name).toBeDefined()
      const volume = d.spec.template.spec.volumes.find((v: Doc) => v.name === mount.name)
      expect(volume.emptyDir).toEqual({})
    }))

    it('declares each env variable once and never stores a secret value inline', each((d, c) => {
      const names = (c.env as Doc[]).map((e) => e.name)
      expect(names.length, d.metadata.name).toBe(new Set(names).size)
      for (const secret of ['JWT_SECRET', 'MONGODB_URL', 'REDIS_URL', 'ADMIN_PASSWORD']) {
        const entry = envOf(c).get(secret)
        if (entry) expect(entry.valueFrom?.secretKeyRef, `${d.metadata.name} ${secret}`).toBeDefined()
      }
    }))

    it('does not mount an API token and uses the chart service account', each((d) => {
      const pod = d.spec.template.spec
      expect(pod.automountServiceAccountToken).toBe(false)
      const account = ofKind(docs, 'ServiceAccount')[0]
      expect(pod.serviceAccountName).toBe(account?.metadata.name)
    }))

    it('gateway: HTTP probes, /readyz for readiness and /healthz (process only) for liveness', () => {
      const c = containerOf(deploymentOf(docs, 'gateway'))
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' })
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' })
      expect(c.ports.map((p: Doc) => p.name)).toContain('http')
      expect(envValue(c, 'HOST')).toBe('0.0.0.0')
      expect(envValue(c, 'PORT')).toBe(String(c.ports[0].containerPort))
    })

    it.each(Object.entries(BACKEND_PORTS))('%s: native gRPC probes on its own port, GRPC_HOST 0.0.0.0', (component, port) => {
      const c = containerOf(deploymentOf(docs, component))
      expect(c.ports).toEqual([{ name: 'grpc', containerPort: port, protocol: 'TCP' }])
      expect(c.readinessProbe.grpc).toEqual({ port })
      expect(c.livenessProbe.grpc).toEqual({ port })
      expect(envValue(c, 'GRPC_HOST')).toBe('0.0.0.0')
      expect(envValue(c, 'GRPC_PORT')).toBe(String(port))
    })

    it('telemetry follows otel.enabled', each((_d, c, component) => {
      const enabled = (readYaml(CI_VALUES[name]).otel as Doc | undefined)?.enabled === true
      if (enabled) {
        expect(envValue(c, 'OTEL_SERVICE_NAME')).toBe(`content-api-${component}`)
        expect(envValue(c, 'OTEL_EXPORTER_OTLP_ENDPOINT')).toMatch(/^http/)
        expect(envOf(c).has('OTEL_SDK_DISABLED')).toBe(false)
      } else {
        expect(envValue(c, 'OTEL_SDK_DISABLED')).toBe('true')
        expect(envOf(c).has('OTEL_EXPORTER_OTLP_ENDPOINT')).toBe(false)
      }
    }))
  })
})
