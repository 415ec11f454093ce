/**
 * The admin tool in the cluster: the toolbox Deployment and the bootstrap Job (a Helm hook) run the admin
 * image, reach the three backends through the NetworkPolicies — and the policies admit nothing else new.
 */
import { Deployment } from 'kubernetes-models/apps/v1'
import { Job } from 'kubernetes-models/batch/v1'
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, COMPONENTS, NAMESPACE, containerOf, deploymentOf, envOf, helm, helmSkipReason, ofKind, parseRendered, render, skipTitle,
  type Doc, type RenderedDoc, valuesFile,
} from './support/chart.js'
import { CHART_DIR } from './support/helm.js'
import { allows, type Endpoint } from './support/network-policy.js'
import { must } from './support/must.js'

const ADMIN_ON = { admin: { toolbox: { enabled: true }, bootstrap: { enabled: true } }, secrets: { adminPassword: 'a-password-for-the-chart-tests' } }
const withAdmin = (extra: object = {}) => render([must(CI_VALUES.minimal), valuesFile(ADMIN_ON), valuesFile(extra)])

const isAdmin = (d: Doc) => d.metadata.labels['app.kubernetes.io/component'] === 'admin'
const adminJob = (docs: RenderedDoc[]): Doc => must(ofKind(docs, 'Job').find(isAdmin))
const adminDeployment = (docs: RenderedDoc[]): Doc => must(ofKind(docs, 'Deployment').find((d) => d.metadata.labels['app.kubernetes.io/component'] === 'admin'))
const script = (job: Doc): string => must(containerOf(job).command.at(-1))

/** Every pod of the release (and the admin pods when rendered) as a policy endpoint. */
function endpoints (docs: RenderedDoc[]): Record<string, Endpoint> {
  const out: Record<string, Endpoint> = {}
  const add = (name: string, template: Doc) => {
    out[name] = {
      namespace: NAMESPACE,
      labels: template.metadata.labels,
      ports: Object.fromEntries((template.spec.containers as Doc[]).flatMap((c) => (c.ports ?? []) as Doc[]).map((p) => [p.name, p.containerPort])),
    }
  }
  for (const c of COMPONENTS) add(c, deploymentOf(docs, c).spec.template)
  const admin = ofKind(docs, 'Deployment').find((d) => d.metadata.labels['app.kubernetes.io/component'] === 'admin')
  if (admin) add('admin', admin.spec.template)
  const job = ofKind(docs, 'Job').find(isAdmin)
  if (job) add('job', job.spec.template)
  return out
}

/** Every (from, to, port) the policies allow between the endpoints given, and to kube-dns. */
function flows (docs: RenderedDoc[], names: string[]): string[] {
  const policies = ofKind(docs, 'NetworkPolicy')
  const pods = endpoints(docs)
  const dns: Endpoint = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }
  const out: string[] = []
  for (const from of names) {
    for (const to of [...names, 'dns']) {
      const target = to === 'dns' ? dns : must(pods[to])
      for (const port of [53, 8080, 9464, 50051, 50052, 50053]) {
        if (allows(policies, NAMESPACE, must(pods[from]), target, { port, protocol: port === 53 ? 'UDP' : 'TCP' })) out.push(`${from} → ${to}:${port}`)
      }
    }
  }
  return out
}

describe.skipIf(helmSkipReason)(`the admin tool in the cluster${skipTitle}`, () => {
  it('renders nothing of it by default', () => {
    const docs = render([must(CI_VALUES.minimal)])
    expect(ofKind(docs, 'Job').filter(isAdmin)).toEqual([])
    expect(docs.filter((d) => d.doc.metadata?.labels?.['app.kubernetes.io/component'] === 'admin')).toEqual([])
  })

  it('the bootstrap Job is a Helm hook after install and upgrade, running the admin image as the services run theirs', () => {
    const docs = withAdmin()
    const job = adminJob(docs)
    new Job(job as ConstructorParameters<typeof Job>[0]).validate()
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'post-install,post-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    })
    expect(job.spec).toMatchObject({ backoffLimit: 2, activeDeadlineSeconds: 600 })
    const pod = job.spec.template.spec
    const container = containerOf(job)
    expect(container.image).toBe('registry.example.com/content/content-api-admin:0.1.0')
    expect(pod.restartPolicy).toBe('Never')
    expect(pod.automountServiceAccountToken).toBe(false)
    expect(pod.securityContext).toEqual(deploymentOf(docs, 'auth').spec.template.spec.securityContext)
    expect(container.securityContext).toEqual(containerOf(deploymentOf(docs, 'auth')).securityContext)
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true)
  })

  it('the Job logs in as the first administrator with ADMIN_PASSWORD of the release\'s Secret, and calls the backends where they are', () => {
    const docs = withAdmin()
    const env = envOf(containerOf(adminJob(docs)))
    const secret = must(ofKind(docs, 'Secret')[0]).metadata.name
    expect(env.get('ADMIN_PASSWORD')?.valueFrom.secretKeyRef).toEqual({ name: secret, key: 'ADMIN_PASSWORD' })
    expect(env.get('SERVICE_SECRET')?.valueFrom.secretKeyRef).toEqual({ name: secret, key: 'SERVICE_SECRET' })
    expect(env.get('ADMIN_USERNAME')?.value).toBe(envOf(containerOf(deploymentOf(docs, 'auth'))).get('ADMIN_USERNAME')?.value)
    const gateway = envOf(containerOf(deploymentOf(docs, 'gateway')))
    for (const name of ['OBJECTS_SERVICE_ADDR', 'AUTH_SERVICE_ADDR', 'POSTER_SERVICE_ADDR']) expect(env.get(name)?.value, name).toBe(gateway.get(name)?.value)
    expect(script(adminJob(docs))).toContain('until content-admin users show "$ADMIN_USERNAME" >/dev/null; do')
  })

  it('loads the fixtures file of a ConfigMap on install, and not on upgrade (a fixtures file is not idempotent)', () => {
    const fixtures = { admin: { bootstrap: { fixtures: { configMap: 'content-fixtures', key: 'site.json' } } } }
    const installed = adminJob(withAdmin(fixtures))
    expect(script(installed)).toContain('content-admin seed "/fixtures/site.json"')
    expect(installed.spec.template.spec.volumes).toContainEqual({ name: 'fixtures', configMap: { name: 'content-fixtures' } })
    expect(containerOf(installed).volumeMounts).toContainEqual({ name: 'fixtures', mountPath: '/fixtures', readOnly: true })

    const upgrade = helm(['template', 'demo', CHART_DIR, '--is-upgrade', '--namespace', NAMESPACE, '-f', must(CI_VALUES.minimal), '-f', valuesFile(ADMIN_ON), '-f', valuesFile(fixtures)])
    expect(upgrade.status, upgrade.stderr).toBe(0)
    const upgraded = adminJob(parseRendered(upgrade.stdout))
    expect(script(upgraded)).not.toContain('seed')
    expect(upgraded.spec.template.spec.volumes.map((v: Doc) => v.name)).toEqual(['tmp'])
  })

  it('without fixtures, the Job only checks the administrator', () => {
    expect(script(adminJob(withAdmin()))).not.toContain('seed')
  })

  it('refuses a bootstrap Job with no administrator password to log in with', () => {
    const out = helm(['template', 'demo', CHART_DIR, '--namespace', NAMESPACE, '-f', must(CI_VALUES.minimal),
      '-f', valuesFile({ admin: { bootstrap: { enabled: true } } })])
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('admin.bootstrap.enabled needs the administrator\'s password')
    // with an existing Secret, the key is the Secret's business
    const existing = render([must(CI_VALUES.minimal), valuesFile({ admin: { bootstrap: { enabled: true } }, secrets: { existingSecret: 'content-secrets' } })])
    expect(envOf(containerOf(adminJob(existing))).get('ADMIN_PASSWORD')?.valueFrom.secretKeyRef).toEqual({ name: 'content-secrets', key: 'ADMIN_PASSWORD' })
  })

  it('the toolbox is one idle pod of the admin image, for kubectl exec, without the administrator\'s password', () => {
    const docs = withAdmin()
    const toolbox = adminDeployment(docs)
    new Deployment(toolbox as ConstructorParameters<typeof Deployment>[0]).validate()
    expect(toolbox.spec.replicas).toBe(1)
    const container = containerOf(toolbox)
    expect(container.command).toEqual(['sleep', 'infinity'])
    expect(container.image).toBe('registry.example.com/content/content-api-admin:0.1.0')
    expect(envOf(container).has('ADMIN_PASSWORD')).toBe(false)
    expect(envOf(container).get('SERVICE_SECRET')?.valueFrom.secretKeyRef.key).toBe('SERVICE_SECRET')
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true)
  })

  it('the NetworkPolicies let the admin pods call every backend\'s gRPC port, and admit nothing else new', () => {
    const before = render([must(CI_VALUES.minimal)])
    const after = withAdmin()
    const services = ['gateway', 'objects', 'auth', 'poster']
    // between the services, the same flows as without the admin tool
    expect(flows(after, services)).toEqual(flows(before, services))
    const all = flows(after, [...services, 'admin', 'job'])
    const admin = all.filter((f) => /^(admin|job) → |→ (admin|job):/.test(f))
    expect(admin.sort()).toEqual([
      'admin → auth:50052', 'admin → dns:53', 'admin → objects:50051', 'admin → poster:50053',
      'job → auth:50052', 'job → dns:53', 'job → objects:50051', 'job → poster:50053',
    ])
  })

  it('without the toolbox or the Job, no policy names the admin pods', () => {
    const policies = ofKind(render([must(CI_VALUES.minimal)]), 'NetworkPolicy')
    expect(JSON.stringify(policies)).not.toContain('"admin"')
  })
})
