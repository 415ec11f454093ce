/**
 * loadtest/k6/cluster/k6-job.yaml: a valid Job whose ConfigMap volume lays out every file the k6 scripts
 * import, at the path they import it from — a file missing there stops k6 at its first import.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Job } from 'kubernetes-models/batch/v1'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import type { Doc } from './support/chart.js'
import { REPO_ROOT } from './support/helm.js'

const LOADTEST = join(REPO_ROOT, 'loadtest')
const job = parse(readFileSync(join(LOADTEST, 'k6/cluster/k6-job.yaml'), 'utf8')) as Doc
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

  it('mounts every file the scripts import at its import path, from flat ConfigMap keys', () => {
    const volume = (job.spec.template.spec.volumes as Doc[]).find((v) => v.name === 'scripts') as Doc
    const items = volume.configMap.items as Array<{ key: string, path: string }>
    expect(items.map((i) => i.path).sort()).toEqual([...needed()].sort())
    // kubectl create configmap --from-file=<dir> names each key by the file's base name
    for (const item of items) expect(item.key).toBe(item.path.split('/').at(-1))
    expect(new Set(items.map((i) => i.key)).size).toBe(items.length)
  })
})
