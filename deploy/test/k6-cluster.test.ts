/**
 * loadtest/k6/cluster: the Job (k6-job.yaml) and the k6-operator TestRun (testrun.yaml). Each is valid, runs
 * k6 as a non-root user on a read-only root filesystem, and lays out from the flat ConfigMap every file the
 * k6 scripts import, at the path they import it from (a file missing there stops k6 at its first import).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Job } from 'kubernetes-models/batch/v1'
import { Pod } from 'kubernetes-models/v1/Pod'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type { Doc } from './support/chart.js'
import { REPO_ROOT } from './support/helm.js'

const LOADTEST = join(REPO_ROOT, 'loadtest')
const read = (file: string) => parse(readFileSync(join(LOADTEST, 'k6/cluster', file), 'utf8')) as Doc
const job = read('k6-job.yaml')
const testRun = read('testrun.yaml')
const scripts = readdirSync(join(LOADTEST, 'k6')).filter((f) => f.endsWith('.ts')).map((f) => join(LOADTEST, 'k6', f))

/** The scripts and every file they import, transitively, relative to loadtest/. */
function needed (): Set<string> {
  const found = new Set<string>()
  const visit = (file: string) => {
    const path = relative(LOADTEST, file)
    if (found.has(path)) return
    found.add(path)
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.\.?\/[^']+)'/g)) visit(resolve(dirname(file), m[1] as string))
  }
  for (const script of scripts) visit(script)
  return found
}

/** The items of a `scripts` ConfigMap volume lay out every needed file under its import path, from flat keys. */
function expectLayout (volumes: Doc[]): void {
  const volume = volumes.find((v) => v.name === 'scripts') as Doc
  const items = volume.configMap.items as Array<{ key: string, path: string }>
  expect(items.map((i) => i.path).sort()).toEqual([...needed()].sort())
  // kubectl create configmap --from-file=<dir> names each key by the file's base name
  for (const item of items) expect(item.key).toBe(item.path.split('/').at(-1))
  expect(new Set(items.map((i) => i.key)).size).toBe(items.length)
}

/** The k6 settings of a container's env, by name. */
const envOf = (env: Doc[]) => Object.fromEntries(env.map((e) => [e.name, e.value ?? e.valueFrom]))

describe('loadtest/k6/cluster/k6-job.yaml', () => {
  it('is a valid Job of the grafana/k6 image, non-root with a read-only root filesystem', () => {
    new Job(job as ConstructorParameters<typeof Job>[0]).validate()
    const pod = job.spec.template.spec
    const container = pod.containers[0]
    expect(container.image).toMatch(/^grafana\/k6:\d+\.\d+\.\d+$/)
    expect(pod.securityContext.runAsNonRoot).toBe(true)
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true)
    expect(container.args).toEqual(['run', '/scripts/k6/read-objects.ts'])
  })

  it('names its run (TESTID) and keeps its pod, whose log\'s last line is the summary, for a day', () => {
    expect(envOf(job.spec.template.spec.containers[0].env).TESTID).toMatch(/^[A-Za-z0-9._:-]+$/)
    expect(job.spec.ttlSecondsAfterFinished).toBe(86400)
  })

  it('mounts every file the scripts import at its import path, from flat ConfigMap keys', () => {
    expectLayout(job.spec.template.spec.volumes)
  })
})

describe('loadtest/k6/cluster/testrun.yaml', () => {
  // TestRunSpec's fields as the k6-operator's API (k6.io/v1alpha1) declares them: no npm package ships its CRD
  const TESTRUN_SPEC = ['script', 'parallelism', 'separate', 'arguments', 'args', 'ports', 'initializer', 'starter', 'runner',
    'quiet', 'paused', 'scuttle', 'cleanup', 'testRunId', 'token']
  const POD_FIELDS = ['disabled', 'affinity', 'automountServiceAccountToken', 'env', 'image', 'imagePullSecrets', 'imagePullPolicy',
    'metadata', 'nodeSelector', 'tolerations', 'topologySpreadConstraints', 'resources', 'serviceAccountName', 'securityContext',
    'containerSecurityContext', 'envFrom', 'readinessProbe', 'livenessProbe', 'initContainers', 'volumes', 'volumeMounts',
    'priorityClassName', 'schedulerName']

  it('is a k6.io/v1alpha1 TestRun whose fields the operator knows, running a script of the runner pods', () => {
    expect(testRun).toMatchObject({ apiVersion: 'k6.io/v1alpha1', kind: 'TestRun', metadata: { name: 'content-k6' } })
    expect(Object.keys(testRun.spec).filter((k) => !TESTRUN_SPEC.includes(k))).toEqual([])
    expect(Object.keys(testRun.spec.runner).filter((k) => !POD_FIELDS.includes(k))).toEqual([])
    expect(Number.isInteger(testRun.spec.parallelism) && testRun.spec.parallelism > 0).toBe(true)
    expect(Object.keys(testRun.spec.script)).toEqual(['localFile'])
    expect(testRun.spec.script.localFile).toMatch(/^\/scripts\/k6\/[a-z-]+\.ts$/)
    expect(needed()).toContain(testRun.spec.script.localFile.slice('/scripts/'.length))
    // a string field in the operator's API
    expect(testRun.spec.runner.automountServiceAccountToken).toBe('false')
  })

  it('its runner is a valid pod as the operator builds it: non-root, read-only root, the image of the Job', () => {
    const r = testRun.spec.runner
    const pod = {
      metadata: { name: 'content-k6-1', labels: r.metadata.labels },
      spec: {
        securityContext: r.securityContext, volumes: r.volumes, restartPolicy: 'Never',
        containers: [{ name: 'k6', image: r.image, env: r.env, resources: r.resources, securityContext: r.containerSecurityContext, volumeMounts: r.volumeMounts }],
      },
    }
    new Pod(pod as ConstructorParameters<typeof Pod>[0]).validate()
    expect(r.securityContext.runAsNonRoot).toBe(true)
    expect(r.containerSecurityContext.readOnlyRootFilesystem).toBe(true)
    expect(r.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' }) // the initializer archives into /tmp
    expect(r.image).toBe(job.spec.template.spec.containers[0].image)
    expect(r.metadata.labels).toEqual(job.spec.template.metadata.labels) // the gateway's ingressFrom admits both alike
  })

  it('one testid for all its runners, and the settings the scripts read', () => {
    const env = envOf(testRun.spec.runner.env)
    expect(env.TESTID).toMatch(/^[A-Za-z0-9._:-]+$/)
    expect(env.PRESET).toBe('constant-rate')
    expect(Number(env.RATE)).toBeGreaterThan(0)
  })

  it('lays out every file the scripts import, as the Job does', () => {
    expectLayout(testRun.spec.runner.volumes)
  })
})
