/**
 * The renderer must behave like `helm template` for what the chart uses; these cases pin the
 * Helm semantics it reimplements, on a throwaway chart.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { parseRendered, renderRaw, rendererSkipReason, valuesFile } from './support/chart.js'

function fixtureChart (templates: Record<string, string>, values = 'a:\n  b: 1\n  c: [x]\nname: base\n'): string {
  const dir = mkdtempSync(join(tmpdir(), 'chart-fixture-'))
  mkdirSync(join(dir, 'templates'))
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: fixture\nversion: 1.2.3\nappVersion: "9.9"\n')
  writeFileSync(join(dir, 'values.yaml'), values)
  for (const [name, text] of Object.entries(templates)) writeFileSync(join(dir, 'templates', name), text)
  return dir
}

const renderOne = (template: string, files: string[] = [], opts: { release?: string } = {}) =>
  renderRaw(files, { chart: fixtureChart({ 'x.yaml': template }), release: opts.release })

const body = (out: { stdout: string }) => out.stdout.replace(/^---\n# Source: .*\n/, '')

describe.skipIf(rendererSkipReason)(`chart-render follows helm template${rendererSkipReason ? ` (skipped: ${rendererSkipReason})` : ''}`, () => {
  let chart: string
  beforeAll(() => {
    chart = fixtureChart({
      '_helpers.tpl': '{{- define "fixture.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end }}',
      'a.yaml': 'kind: A\nname: {{ include "fixture.name" . }}\n',
      'b.yaml': '{{- if .Values.never }}kind: B{{ end }}',
      'NOTES.txt': 'notes for {{ .Release.Name }}',
    })
  })

  it('renders non-partial templates in order, skips empty output, separates with Source lines', () => {
    const out = renderRaw([], { chart, release: 'rel' })
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).toBe('---\n# Source: fixture/templates/a.yaml\nkind: A\nname: fixture-rel\n')
    expect(parseRendered(out.stdout)).toEqual([{ source: 'fixture/templates/a.yaml', doc: { kind: 'A', name: 'fixture-rel' } }])
  })

  it('renders NOTES.txt only with --notes', () => {
    expect(renderRaw([], { chart, release: 'rel', notes: true }).stdout).toBe('notes for rel')
  })

  it('exposes Chart, Release and Capabilities like helm', () => {
    const out = renderOne('{{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.AppVersion }} {{ .Release.Name }} ' +
      '{{ .Release.Namespace }} {{ .Release.Service }} {{ .Release.IsInstall }} {{ .Capabilities.KubeVersion.Major }} ' +
      '{{ .Template.BasePath }}', [], { release: 'r1' })
    expect(body(out)).toBe('fixture 1.2.3 9.9 r1 default Helm true 1 fixture/templates\n')
  })

  it('a missing key renders as empty, not "<no value>"', () => {
    expect(body(renderOne('v=[{{ .Values.nope }}] w=[{{ .Values.a.nope }}]'))).toBe('v=[] w=[]\n')
  })

  it('-f files deep-merge over values.yaml; null deletes a key; later files win', () => {
    const first = valuesFile({ a: { c: ['y'], d: 2 }, name: 'first' })
    const second = valuesFile({ a: { b: null }, name: 'second' })
    const out = renderOne('{{ toJson .Values }}', [first, second])
    expect(JSON.parse(body(out))).toEqual({ a: { c: ['y'], d: 2 }, name: 'second' })
  })

  it('toYaml drops the trailing newline so nindent lines up', () => {
    const out = renderOne('m:{{ toYaml .Values.a | nindent 2 }}\nend: 1')
    expect(parse(body(out))).toEqual({ m: { b: 1, c: ['x'] }, end: 1 })
  })

  it('numbers from values are float64, as in helm (large ones need int64 to print plainly)', () => {
    const out = renderOne('{{ .Values.num }} {{ .Values.num | int64 }}', [valuesFile({ num: 2000000 })])
    expect(body(out)).toBe('2e+06 2000000\n')
  })

  it('tpl renders a string as a template against the given data', () => {
    const out = renderOne('{{ tpl .Values.t . }}', [valuesFile({ t: '{{ .Values.name }}-{{ .Release.Name }}' })])
    expect(body(out)).toBe('base-demo\n')
  })

  it('parses values as YAML 1.1, as helm does: a bare y is true', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chart-yaml11-')), 'v.yaml')
    writeFileSync(file, 'flags: [y, "y", on]\n')
    expect(body(renderOne('{{ toJson .Values.flags }}', [file]))).toBe('[true,"y",true]\n')
  })

  it('fromYaml and toJson round-trip', () => {
    expect(body(renderOne('{{ (fromYaml "k: [1, 2]") | toJson }}'))).toBe('{"k":[1,2]}\n')
  })

  it('required fails the render with its message; fail does too', () => {
    const req = renderOne('{{ required "name the thing" .Values.absent }}')
    expect(req.status).not.toBe(0)
    expect(req.stderr).toContain('name the thing')
    const failed = renderOne('{{ fail "stop here" }}')
    expect(failed.status).not.toBe(0)
    expect(failed.stderr).toContain('stop here')
  })

  it('features that need a cluster or files fail loudly instead of rendering quietly', () => {
    expect(renderOne('{{ lookup "v1" "Secret" "ns" "x" }}').stderr).toContain('lookup is not available')
    expect(renderOne('{{ .Files.Get "x" }}').status).not.toBe(0)
    expect(renderOne('{{ env "HOME" }}').stderr).toContain('function "env" not defined')
  })

  it('refuses subcharts and nested template folders rather than skipping them', () => {
    const withDeps = fixtureChart({ 'x.yaml': 'a: 1' })
    writeFileSync(join(withDeps, 'Chart.yaml'), 'apiVersion: v2\nname: fixture\nversion: 1.0.0\ndependencies:\n  - name: redis\n')
    expect(renderRaw([], { chart: withDeps }).stderr).toContain('dependencies (subcharts) are not supported')
    const nested = fixtureChart({ 'x.yaml': 'a: 1' })
    mkdirSync(join(nested, 'templates', 'more'))
    expect(renderRaw([], { chart: nested }).stderr).toContain('nested template folders are not supported')
  })

  it('a template syntax error names the file', () => {
    const out = renderOne('{{ if }}')
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('fixture/templates/x.yaml')
  })
})
