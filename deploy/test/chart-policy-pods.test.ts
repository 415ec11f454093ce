/** helm-unittest-style policy over every rendered pod (Deployments and the test hook), for each ci values file. */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, COMPONENTS, componentOf, containerOf, deploymentOf, envOf, envValue, helmSkipReason, ofKind, render,
  skipTitle, type Doc, type RenderedDoc,
} from './support/chart.js'
import { defaultValues, mergeValues, readYaml } from './support/values.js'
import { must } from './support/must.js'

/** Every variable that holds a secret: always from the Secret, never a value in the manifest. */
const SECRET_NAMES = ['SERVICE_SECRET', 'JWT_SECRET', 'MEDIA_SIGNING_KEY', 'DATABASE_URL', 'MONGODB_URL', 'REDIS_URL', 'ADMIN_PASSWORD']

describe.skipIf(helmSkipReason)(`pod policy${skipTitle}`, () => {
  describe.each(Object.keys(CI_VALUES))('ci/%s-values.yaml', (name) => {
    let docs: RenderedDoc[] = []
    let workloads: Doc[] = []
    beforeAll(() => {
      docs = render([must(CI_VALUES[name])])
      workloads = [...ofKind(docs, 'Deployment'), ...ofKind(docs, 'Pod')]
    })
    const podOf = (w: Doc): Doc => w.spec.template?.spec ?? w.spec
    const each = (check: (w: Doc, c: Doc, component: string) => void) => () => {
      expect(workloads.map(componentOf).sort()).toEqual([...COMPONENTS, 'test'].sort())
      for (const w of workloads) for (const c of podOf(w).containers as Doc[]) check(w, c, must(componentOf(w)))
    }
    const eachDeployment = (check: (d: Doc, c: Doc, component: string) => void) => () => {
      for (const component of COMPONENTS) {
        const d = deploymentOf(docs, component)
        check(d, containerOf(d), component)
      }
    }

    it('runs non-root, read-only, without privileges, under RuntimeDefault seccomp (the test pod too)', each((w, c) => {
      const pod = podOf(w).securityContext
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

    it('sets cpu/memory requests and a memory limit (the test pod too)', each((w, c) => {
      expect(c.resources.requests, w.metadata.name).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }))
      expect(c.resources.limits?.memory, w.metadata.name).toBeDefined()
    }))

    it('does not mount an API token and uses the chart service account (the test pod too)', each((w) => {
      const pod = podOf(w)
      expect(pod.automountServiceAccountToken).toBe(false)
      expect(pod.serviceAccountName).toBe(ofKind(docs, 'ServiceAccount')[0]?.metadata.name)
    }))

    it('has startup, readiness and liveness probes; startup allows up to a minute', eachDeployment((d, c) => {
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(c[probe], `${d.metadata.name} ${probe}`).toBeDefined()
      expect(c.startupProbe.failureThreshold * c.startupProbe.periodSeconds).toBeGreaterThanOrEqual(60)
    }))

    it('pulls a fixed image: <registry>/<repository>-<component>:<tag>, a per-component repository, or a digest', eachDeployment((_d, c) => {
      expect(c.image).toMatch(/^[^:@]+\/[^:@]+(:[\w.-]+|@sha256:[a-f0-9]{64})$/)
      expect(c.image).not.toMatch(/:latest$/)
    }))

    it('selects its own pods: selector ⊆ pod labels, and names its component', eachDeployment((d) => {
      const labels = d.spec.template.metadata.labels
      for (const [k, v] of Object.entries(d.spec.selector.matchLabels as Record<string, string>)) expect(labels[k]).toBe(v)
      expect(d.spec.selector.matchLabels['app.kubernetes.io/component']).toBe(labels['app.kubernetes.io/component'])
    }))

    it('gives SIGTERM handling its time: grace > preStop sleep + SHUTDOWN_TIMEOUT_MS', eachDeployment((d, c) => {
      const shutdownMs = Number(envValue(c, 'SHUTDOWN_TIMEOUT_MS'))
      const preStop = Number(c.lifecycle.preStop.exec.command[1])
      expect(shutdownMs).toBeGreaterThan(0)
      expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(shutdownMs + preStop * 1000)
    }))

    it('mounts an emptyDir at /tmp (read-only root filesystem)', eachDeployment((d, c) => {
      const mount = c.volumeMounts.find((m: Doc) => m.mountPath === '/tmp')
      expect(mount, d.metadata.name).toBeDefined()
      const volume = d.spec.template.spec.volumes.find((v: Doc) => v.name === mount.name)
      expect(volume.emptyDir).toEqual({})
    }))

    it('every volume mount names a volume of its pod', eachDeployment((d, c) => {
      const volumes = (d.spec.template.spec.volumes as Doc[]).map((v) => v.name)
      for (const m of c.volumeMounts as Doc[]) expect(volumes, `${d.metadata.name} ${m.name}`).toContain(m.name)
    }))

    it('declares each env variable once and takes every secret it needs, and only those, from the Secret', eachDeployment((d, c, component) => {
      const names = (c.env as Doc[]).map((e) => e.name)
      expect(names.length, d.metadata.name).toBe(new Set(names).size)
      const values = mergeValues(defaultValues(), readYaml(must(CI_VALUES[name])))
      // the store's URL for every backend (the poster's media live beside the store: PostgreSQL, GridFS)
      const url = ({ postgres: ['DATABASE_URL'], mongodb: ['MONGODB_URL'], sqlite: [] } as Record<string, string[]>)[values.store as string] ?? []
      const redis = (values.redis as { enabled: boolean }).enabled
      const needs: Record<string, string[]> = {
        gateway: [],
        auth: [...url, ...(redis ? ['REDIS_URL'] : []), 'ADMIN_PASSWORD'],
        objects: url,
        poster: ['MEDIA_SIGNING_KEY', ...url],
      }
      const expected = ['SERVICE_SECRET', 'JWT_SECRET', ...must(needs[component])].sort()
      const fromSecret = [...envOf(c).entries()].filter(([, e]) => e.valueFrom?.secretKeyRef !== undefined).map(([n]) => n).sort()
      expect(fromSecret, d.metadata.name).toEqual(expected)
      // none of them, nor any other secret name, carries a value inline
      for (const secret of SECRET_NAMES) expect(envOf(c).get(secret)?.value, `${d.metadata.name} ${secret}`).toBeUndefined()
    }))

    it('gateway: HTTP probes, /readyz for readiness, /healthz (process only) for startup and liveness', () => {
      const c = containerOf(deploymentOf(docs, 'gateway'))
      expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' })
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' })
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' })
      expect(envValue(c, 'HOST')).toBe('0.0.0.0')
      expect(envValue(c, 'PORT')).toBe(String(c.ports.find((p: Doc) => p.name === 'http').containerPort))
    })

    it.each(BACKENDS)('%s: native gRPC startup, readiness and liveness probes on its own port, GRPC_HOST 0.0.0.0', (component) => {
      const c = containerOf(deploymentOf(docs, component))
      const port = c.ports.find((p: Doc) => p.name === 'grpc').containerPort
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(c[probe].grpc, probe).toEqual({ port })
      expect(envValue(c, 'GRPC_HOST')).toBe('0.0.0.0')
      expect(envValue(c, 'GRPC_PORT')).toBe(String(port))
    })

    it('telemetry follows otel.enabled, and metrics never go over OTLP', eachDeployment((_d, c, component) => {
      const enabled = (readYaml(must(CI_VALUES[name])).otel as Doc | undefined)?.enabled === true
      if (enabled) {
        expect(envValue(c, 'OTEL_SERVICE_NAME')).toBe(`content-api-${component}`)
        expect(envValue(c, 'OTEL_EXPORTER_OTLP_ENDPOINT')).toMatch(/^http/)
        expect(envValue(c, 'OTEL_METRICS_EXPORTER')).toBe('none')
        expect(envOf(c).has('OTEL_SDK_DISABLED')).toBe(false)
      } else {
        expect(envValue(c, 'OTEL_SDK_DISABLED')).toBe('true')
        expect(envOf(c).has('OTEL_EXPORTER_OTLP_ENDPOINT')).toBe(false)
      }
    }))
  })
})
