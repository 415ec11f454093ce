/**
 * Finds or builds the chart renderer (deploy/tools/chart-render, Go + sprig from Debian packages)
 * at <repo>/.bin/chart-render. Rebuilt when its sources are newer than the binary.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const DEPLOY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const REPO_ROOT = resolve(DEPLOY_DIR, '..')
export const CHART_DIR = join(DEPLOY_DIR, 'helm/content-api')
export const RENDERER_SRC = join(DEPLOY_DIR, 'tools/chart-render')
export const RENDERER_BIN = join(REPO_ROOT, '.bin/chart-render')
export const APT_PACKAGES = 'golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev'

export type RendererState =
  | { kind: 'ready', path: string }
  | { kind: 'absent', reason: string }
  | { kind: 'broken', error: string }

function goAvailable (): boolean {
  return spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0
}

function binaryIsFresh (): boolean {
  if (!existsSync(RENDERER_BIN)) return false
  const built = statSync(RENDERER_BIN).mtimeMs
  return readdirSync(RENDERER_SRC)
    .filter((f) => f.endsWith('.go'))
    .every((f) => statSync(join(RENDERER_SRC, f)).mtimeMs <= built)
}

export function prepareRenderer (): RendererState {
  const hasGo = goAvailable()
  if (binaryIsFresh() || (!hasGo && existsSync(RENDERER_BIN))) return { kind: 'ready', path: RENDERER_BIN }
  if (!hasGo) return { kind: 'absent', reason: `go toolchain not installed (apt-get install -y ${APT_PACKAGES})` }
  mkdirSync(dirname(RENDERER_BIN), { recursive: true })
  // Build beside the target and rename, so a concurrent run never executes a half-written file.
  const partial = `${RENDERER_BIN}.${process.pid}.tmp`
  const built = spawnSync('go', ['build', '-o', partial, '.'], {
    cwd: RENDERER_SRC,
    encoding: 'utf8',
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: '/usr/share/gocode',
      GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'chart-render-gocache'),
      GOFLAGS: '',
    },
  })
  if (built.status !== 0) {
    return { kind: 'broken', error: `go build failed (are ${APT_PACKAGES} installed?):\n${built.stderr}` }
  }
  renameSync(partial, RENDERER_BIN)
  return { kind: 'ready', path: RENDERER_BIN }
}
