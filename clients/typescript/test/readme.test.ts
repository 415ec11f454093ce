import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { png } from '../../../test/support/media.js'
import { ADMIN, removeDir, type RunningSystem, startSystem } from '../../../test/support/system.js'

const PACKAGE = join(import.meta.dirname, '..')
const README = readFileSync(join(PACKAGE, 'README.md'), 'utf8')
/** The README's TypeScript examples, in order, with their tag (```ts changes). */
const blocks = [...README.matchAll(/^```ts(?: (\w+))?\n([\s\S]*?)^```$/gm)].map((m) => ({ tag: m[1], code: m[2] ?? '' }))
/** What the examples name that the test replaces: the server's address and the admin's password. */
const forSystem = (code: string, base: string) => code.replaceAll('http://127.0.0.1:8080', base).replaceAll('the-admin-password', ADMIN.password)

let system: RunningSystem
let dir: string
let liveChanges = false
let run: Promise<{ stdout: string, stderr: string }>

beforeAll(async () => {
  system = await startSystem()
  // the examples run inside the package's folder, where `@content/client` resolves to this package
  dir = mkdtempSync(join(PACKAGE, '.readme-'))
  writeFileSync(join(dir, 'dot.png'), await png(3, 2))
  const listing = await (await fetch(`${system.base}/`)).json() as { data: Record<string, string> }
  liveChanges = 'changes' in listing.data
})
afterAll(async () => {
  await system?.stop()
  if (system) removeDir(system.dataDir)
  if (dir) removeDir(dir)
})

describe("the README's examples", () => {
  it('are there: setup, objects, lists, relations, uploads, errors, trash, revisions, live changes, storage and logout', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10)
    expect(blocks.filter((b) => b.tag === 'changes')).toHaveLength(1)
  })

  it('type-check against the package', () => {
    const file = join(dir, 'examples.mts')
    writeFileSync(file, blocks.map((b) => b.code).join('\n'))
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
      strict: true, noEmit: true, skipLibCheck: true, types: ['node'], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    })
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(problems).toEqual([])
  })

  it('run in order against a running system', async () => {
    const chosen = blocks.filter((b) => b.tag === undefined || (b.tag === 'changes' && liveChanges))
    const source = forSystem(chosen.map((b) => b.code).join('\n'), system.base)
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    writeFileSync(join(dir, 'examples.mjs'), js)
    run = promisify(execFile)(process.execPath, ['examples.mjs'], { cwd: dir, timeout: 60_000 })
    const { stdout, stderr } = await run
    expect(stderr).toBe('')
    const lines = stdout.trim().split('\n')
    expect(lines).toEqual(expect.arrayContaining([
      'logged in as admin',
      'Spring - The first season',
      'titles Summer, Spring',
      'pages 2',
      'related Summer { note: \'same year\' }',
      'revised description - The first season',
      'restored The first season',
      'stored true',
      'logged out true',
    ]))
    expect(lines.filter((l) => l.startsWith('child '))).toHaveLength(3)
    expect(lines).toContainEqual(expect.stringMatching(/^uploaded dot\.png image\/png 3x2 http:\/\/\S+$/))
    expect(lines).toContainEqual(`error 404 OBJECT_NOT_FOUND ${system.base}/docs/errors#OBJECT_NOT_FOUND`)
    expect(lines).toContainEqual(expect.stringMatching(/^trashed \d+ \d{4}-\d\d-\d\dT/))
  })

  it('include live changes: the subscription sees the object the example creates', async (ctx) => {
    if (!liveChanges) ctx.skip('GET /changes is not in this system\'s endpoint listing yet: the live-changes example cannot run')
    const { stdout } = await run
    expect(stdout).toContain('change object.created document')
  })
})
