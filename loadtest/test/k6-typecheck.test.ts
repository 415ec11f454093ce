/** k6 cannot run here; the scripts are type-checked against @types/k6 instead (no emit). */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const LOADTEST = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ROOT = resolve(LOADTEST, '..')
const TSC = join(ROOT, 'node_modules/.bin/tsc')

const tsc = (project: string) => spawnSync(TSC, ['-p', project, '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8' })

describe('k6 scripts type-check', () => {
  it('tsc -p loadtest/k6/tsconfig.json exits 0', () => {
    const run = tsc('loadtest/k6/tsconfig.json')
    expect(run.stdout + run.stderr).toBe('')
    expect(run.status).toBe(0)
  })

  it('the same settings reject a misuse of the k6 API (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-typecheck-'))
    writeFileSync(join(dir, 'bad.ts'), [
      "import http from 'k6/http'",
      'const res = http.get(123)',
      'export const status: number = res.statuss',
      "export const dom = document.title",
    ].join('\n'))
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      extends: join(LOADTEST, 'k6/tsconfig.json'),
      compilerOptions: { typeRoots: [join(ROOT, 'node_modules/@types')] },
      include: [join(dir, 'bad.ts')],
    }))
    const run = tsc(join(dir, 'tsconfig.json'))
    expect(run.status).not.toBe(0)
    expect(run.stdout).toContain("Argument of type 'number' is not assignable")
    expect(run.stdout).toContain("Property 'statuss' does not exist")
    expect(run.stdout).toContain("Cannot find name 'document'") // lib ES2020 only: no DOM in k6
  })
})
