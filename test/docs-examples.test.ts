import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, removeDir, ROOT, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

/**
 * Every example of docs/api.md works as written: its `sh` blocks run in order, in one bash, against a
 * fresh system with the demo publication, and each output is compared with the `json` block that follows.
 * In those, the string "…" stands for any value, an array ending in "…" may hold more items, and
 * "Answer (NNN)" before a block is its HTTP status (read from curl, which the run wraps to report it).
 */

interface Example { title: string, command: string, expected?: unknown, status?: number, run: boolean }

function examplesOf (markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(sh|json)\n([\s\S]*?)```/g)]
  const examples: Example[] = []
  let last = 0
  for (const block of blocks) {
    const before = markdown.slice(last, block.index)
    last = block.index + block[0].length
    if (block[1] === 'json') {
      must(examples.at(-1)).expected = JSON.parse(must(block[2]))
      continue
    }
    const status = /Answer \((\d{3})\)/.exec(before)
    const command = must(block[2])
    examples.push({
      title: command.split('\n').find((l) => l.startsWith('curl')) ?? must(command.split('\n')[0]),
      command, run: !before.includes('<!-- not run'),
      ...(status ? { status: Number(status[1]) } : {}),
    })
  }
  return examples
}

/** Problems of `actual` against the documented `expected` ("…" = any value; a trailing "…" item = maybe more). */
function shapeProblems (expected: unknown, actual: unknown, at = '$'): string[] {
  if (expected === '…') return actual === undefined ? [`${at} is missing`] : []
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at} is not an array`]
    const more = expected.at(-1) === '…'
    const items = more ? expected.slice(0, -1) : expected
    if (more ? actual.length < items.length : actual.length !== items.length) return [`${at} has ${actual.length} items, the docs show ${items.length}${more ? ' or more' : ''}`]
    return items.flatMap((item, i) => shapeProblems(item, actual[i], `${at}[${i}]`))
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${at} is not an object`]
    return Object.entries(expected).flatMap(([key, value]) =>
      key in actual ? shapeProblems(value, (actual as Record<string, unknown>)[key], `${at}.${key}`) : [`${at}.${key} is missing`])
  }
  return Object.is(expected, actual) ? [] : [`${at} is ${JSON.stringify(actual)}, the docs show ${JSON.stringify(expected)}`]
}

describe('docs/api.md: every example, as written, against a fresh system', () => {
  const examples = examplesOf(readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8'))
  const results = new Map<number, { output: string, status?: number, rc: number }>()
  let system: RunningSystem
  let work: string

  beforeAll(async () => {
    system = await startSystem({ SEED_DEMO: 'true' })
    work = mkdtempSync(join(tmpdir(), 'docs-examples-'))
    // each block's stdout between markers, its curl statuses on its own stderr file; variables carry over
    const script = [
      `curl () { command curl --write-out '%{stderr}@@status:%{http_code}\\n' "$@"; }`,
      ...examples.flatMap((e, i) => e.run ? [`echo '@@begin ${i}'`, `{\n${e.command}\n} 2> '${work}/status-${i}'`, `echo "@@end ${i} $?"`] : []),
    ].join('\n')
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, API: system.base, ADMIN_PASSWORD: ADMIN.password },
    })
    for (const [, index, output, rc] of run.stdout.matchAll(/@@begin (\d+)\n([\s\S]*?)\n?@@end \d+ (\d+)\n/g)) {
      const statuses = [...readFileSync(join(work, `status-${index}`), 'utf8').matchAll(/@@status:(\d{3})/g)]
      const status = statuses.at(-1)?.[1]
      results.set(Number(index), { output: must(output), rc: Number(rc), ...(status ? { status: Number(status) } : {}) })
    }
  }, 180_000)
  afterAll(async () => {
    await system.stop()
    removeDir(system.dataDir)
    removeDir(work)
  })

  it('has an example of every read and write the docs promise', () => {
    const commands = examples.map((e) => e.command).join('\n')
    for (const needed of ['-X POST "$API/auth"', '"$API/auth" -H', '/me', '-X POST "$API/objects"', '/relations/attach"', '-X PUT', '/children"', '-X DELETE "$API/objects/', '/files/image/', '/poster/', 'refresh_token', '-X DELETE "$API/auth/', '?lang=', '/openapi.json']) {
      expect(commands).toContain(needed)
    }
  })

  it.each(examples.flatMap((e, i) => e.run ? [[i, e.title] as const] : []))('%i: %s', (i) => {
    const example = must(examples[i])
    const result = results.get(i)
    expect(result, 'the example did not run').toBeDefined()
    expect(must(result).rc, must(result).output).toBe(0)
    if (must(result).status !== undefined) expect(must(result).status, must(result).output).toBe(example.status ?? 200)
    if (example.expected !== undefined) {
      let actual: unknown
      expect(() => { actual = JSON.parse(must(result).output) }, must(result).output).not.toThrow()
      expect(shapeProblems(example.expected, actual)).toEqual([])
    }
  })
})
