/** Runs helm over the chart and hands back parsed documents. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { parseAllDocuments, stringify } from 'yaml'
import { CHART_DIR } from './helm.js'
import { must } from './must.js'

// biome-ignore lint/suspicious/noExplicitAny: a rendered Kubernetes manifest, read by path as YAML
export type Doc = Record<string, any>
export interface RenderedDoc { source: string, doc: Doc }
export interface HelmResult { status: number | null, stdout: string, stderr: string }

export const KUBE_VERSION = '1.31.0'
export const NAMESPACE = 'content'
export const COMPONENTS = ['gateway', 'objects', 'auth', 'poster'] as const
export const BACKENDS = ['objects', 'auth', 'poster'] as const

/** ci/<name>-values.yaml by name, as chart-testing finds them. */
export const CI_VALUES: Record<string, string> = Object.fromEntries(
  readdirSync(join(CHART_DIR, 'ci'))
    .filter((f) => f.endsWith('-values.yaml'))
    .map((f) => [f.replace(/-values\.yaml$/, ''), join(CHART_DIR, 'ci', f)]))

export const helmState = inject('helm')
/** Why helm tests cannot run here, or undefined when they can. */
export const helmSkipReason = helmState.kind === 'absent' ? helmState.reason : undefined
export const skipTitle = helmSkipReason ? ` (skipped: ${helmSkipReason})` : ''

let scratch: string | undefined
const scratchDir = () => (scratch ??= mkdtempSync(join(tmpdir(), 'chart-test-')))

/**
 * Writes a values overlay to a temp file for `-f`. Strings are quoted because helm reads YAML 1.1,
 * where a bare `y` or `on` is a boolean.
 */
export function valuesFile (values: object): string {
  const file = join(scratchDir(), `values-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(file, stringify(values, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }))
  return file
}

/** helm with its own config, cache and data dirs, and no cluster to reach. */
export function helm (args: string[]): HelmResult {
  if (helmState.kind !== 'ready') throw new Error(helmState.kind === 'broken' ? helmState.error : helmState.reason)
  const home = scratchDir()
  const run = spawnSync(helmState.path, args, {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: home,
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_DATA_HOME: join(home, 'data'),
      KUBECONFIG: join(home, 'no-kubeconfig'),
    },
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

const valueArgs = (files: string[]) => files.flatMap((f) => ['-f', f])

export const templateRaw = (files: string[] = [], release = 'demo'): HelmResult =>
  helm(['template', release, CHART_DIR, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...valueArgs(files)])

export const lint = (files: string[] = []): HelmResult => helm(['lint', '--strict', CHART_DIR, ...valueArgs(files)])

/** NOTES.txt as `helm install` prints it (a client-side dry run: no cluster). */
export function notes (files: string[] = []): string {
  const out = helm(['install', 'demo', CHART_DIR, '--dry-run=client', '--namespace', NAMESPACE, ...valueArgs(files)])
  if (out.status !== 0) throw new Error(`helm install --dry-run failed: ${out.stderr}`)
  const at = out.stdout.indexOf('\nNOTES:\n')
  if (at < 0) throw new Error('no NOTES in helm install output')
  return out.stdout.slice(at + '\nNOTES:\n'.length)
}

const cache = new Map<string, RenderedDoc[]>()
/** `helm template` parsed; fails loudly on a render or YAML error. Same files, same (shared) result. */
export function render (files: string[] = [], release = 'demo'): RenderedDoc[] {
  const key = JSON.stringify([files, release])
  const hit = cache.get(key)
  if (hit) return hit
  const out = templateRaw(files, release)
  if (out.status !== 0) throw new Error(`helm template failed: ${out.stderr}`)
  const docs = parseRendered(out.stdout)
  cache.set(key, docs)
  return docs
}

/** Renders values.yaml + ci/minimal-values.yaml + an overlay. */
export const renderWith = (overlay: object): RenderedDoc[] => render([must(CI_VALUES.minimal), valuesFile(overlay)])

/** Splits helm output on its Source lines; YAML 1.1 like the Kubernetes tooling that reads it. */
export function parseRendered (text: string): RenderedDoc[] {
  const docs: RenderedDoc[] = []
  for (const segment of text.split(/^---\n(?=# Source: )/m).filter((s) => s.trim() !== '')) {
    const source = /^# Source: (.+)$/m.exec(segment)?.[1]
    if (!source) throw new Error(`segment without a Source line:\n${segment.slice(0, 200)}`)
    for (const parsed of parseAllDocuments(segment, { version: '1.1', uniqueKeys: true })) {
      if (parsed.errors.length > 0) throw new Error(`${source}: ${parsed.errors.map((e) => e.message).join('; ')}`)
      const doc = parsed.toJS() as Doc | null
      if (doc !== null) docs.push({ source, doc })
    }
  }
  return docs
}

export const ofKind = (docs: RenderedDoc[], kind: string): Doc[] =>
  docs.filter((d) => d.doc.kind === kind).map((d) => d.doc)

export const componentOf = (doc: Doc): string | undefined => doc.metadata.labels?.['app.kubernetes.io/component']

/** The one document of a kind labelled with a component. */
export function ofComponent (docs: RenderedDoc[], kind: string, component: string): Doc {
  const found = ofKind(docs, kind).filter((d) => componentOf(d) === component)
  if (found.length !== 1) throw new Error(`${found.length} ${kind} for ${component}`)
  return must(found[0])
}

export const deploymentOf = (docs: RenderedDoc[], component: string): Doc => ofComponent(docs, 'Deployment', component)

export const containerOf = (workload: Doc): Doc => (workload.spec.template?.spec ?? workload.spec).containers[0]

/** name → env entry of a container. */
export function envOf (container: Doc): Map<string, Doc> {
  return new Map((container.env as Doc[] ?? []).map((e) => [e.name as string, e]))
}

export const envValue = (container: Doc, name: string): string | undefined => envOf(container).get(name)?.value

export const selectorOf = (docs: RenderedDoc[], component: string): Record<string, string> =>
  deploymentOf(docs, component).spec.selector.matchLabels
