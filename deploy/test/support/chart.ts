/** Renders the chart with the built renderer and hands back parsed documents. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { parseAllDocuments, stringify } from 'yaml'
import { CHART_DIR } from './renderer.js'

export type Doc = Record<string, any>
export interface RenderedDoc { source: string, doc: Doc }
export interface RenderResult { status: number | null, stdout: string, stderr: string }

export const CI_VALUES = {
  minimal: join(CHART_DIR, 'ci/minimal-values.yaml'),
  full: join(CHART_DIR, 'ci/full-values.yaml'),
} as const

const state = inject('chartRenderer')
/** Why render tests cannot run here, or undefined when they can. */
export const rendererSkipReason = state.kind === 'absent' ? state.reason : undefined
export const rendererState = state

let scratch: string | undefined
/**
 * Writes a values overlay to a temp file (the renderer, like helm, takes `-f` files). Strings are
 * quoted because helm reads YAML 1.1, where a bare `y` or `on` is a boolean.
 */
export function valuesFile (values: object): string {
  scratch ??= mkdtempSync(join(tmpdir(), 'chart-values-'))
  const file = join(scratch, `values-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(file, stringify(values, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }))
  return file
}

export function renderRaw (files: string[] = [], opts: { release?: string, notes?: boolean, chart?: string } = {}): RenderResult {
  if (state.kind !== 'ready') throw new Error(state.kind === 'broken' ? state.error : state.reason)
  const args = [...files.flatMap((f) => ['-f', f]), '--release', opts.release ?? 'demo']
  if (opts.notes) args.push('--notes')
  args.push(opts.chart ?? CHART_DIR)
  const run = spawnSync(state.path, args, { encoding: 'utf8' })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Renders and parses every document, failing loudly on a render or YAML error. */
export function render (files: string[] = [], release = 'demo'): RenderedDoc[] {
  const out = renderRaw(files, { release })
  if (out.status !== 0) throw new Error(`render failed: ${out.stderr}`)
  return parseRendered(out.stdout)
}

/** Splits renderer output on its Source lines; YAML 1.1 like the Kubernetes tooling that reads it. */
export function parseRendered (text: string): RenderedDoc[] {
  const docs: RenderedDoc[] = []
  for (const segment of text.split(/^---\n(?=# Source: )/m).filter((s) => s.trim() !== '')) {
    const source = /^# Source: (.+)$/m.exec(segment)?.[1]
    if (!source) throw new Error(`segment without a Source line:\n${segment.slice(0, 200)}`)
    for (const parsed of parseAllDocuments(segment, { version: '1.1' })) {
      if (parsed.errors.length > 0) throw new Error(`${source}: ${parsed.errors.map((e) => e.message).join('; ')}`)
      const doc = parsed.toJS() as Doc | null
      if (doc !== null) docs.push({ source, doc })
    }
  }
  return docs
}

export const ofKind = (docs: RenderedDoc[], kind: string): Doc[] =>
  docs.filter((d) => d.doc.kind === kind).map((d) => d.doc)

export function byName (docs: RenderedDoc[], kind: string, name: string): Doc {
  const found = ofKind(docs, kind).find((d) => d.metadata.name === name)
  if (!found) throw new Error(`${kind} ${name} not rendered`)
  return found
}

/** The Deployment of a component, found by its component label. */
export function deploymentOf (docs: RenderedDoc[], component: string): Doc {
  const found = ofKind(docs, 'Deployment')
    .find((d) => d.metadata.labels['app.kubernetes.io/component'] === component)
  if (!found) throw new Error(`no Deployment for ${component}`)
  return found
}

export const containerOf = (deployment: Doc): Doc => deployment.spec.template.spec.containers[0]

/** name → env entry of a container. */
export function envOf (container: Doc): Map<string, Doc> {
  return new Map((container.env as Doc[] ?? []).map((e) => [e.name as string, e]))
}

export const envValue = (container: Doc, name: string): string | undefined => envOf(container).get(name)?.value

export const COMPONENTS = ['gateway', 'objects', 'auth', 'poster'] as const
