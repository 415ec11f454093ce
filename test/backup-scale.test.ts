import { statSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { admin } from './support/seeded.js'
import { ADMIN, ROOT, removeDir, startSystem, type RunningSystem } from './support/system.js'

const OBJECTS = 50_000
const FILES = 5
/** Each document's body: the export is then some 110 MB, far above the heap the exporting process may have. */
const BODY = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(36)
/** The exporting process's old-space limit: what holding every object (or even a fifth of them) would pass. */
const HEAP_MB = 64

describe(`admin export of ${OBJECTS} objects in a heap of ${HEAP_MB} MB`, () => {
  let system: RunningSystem
  let dir: string

  beforeAll(async () => {
    system = await startSystem()
    dir = mkdtempSync(join(tmpdir(), 'content-backup-scale-'))
    const per = OBJECTS / FILES
    for (let f = 0; f < FILES; f++) {
      const objects = Array.from({ length: per }, (_, i) => ({ object_type: 'document', title: `Document ${f * per + i}`, body: BODY, parents: ['@publication'] }))
      const file = join(dir, `part-${f}.json`)
      writeFileSync(file, JSON.stringify({ objects }))
      const seeded = admin(system, 'seed', file)
      expect(seeded.status, seeded.stderr).toBe(0)
    }
  }, 900_000)
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
    if (dir) removeDir(dir)
  })

  it('streams: it completes with the heap capped, writing many times that size', () => {
    const out = join(dir, 'export.ndjson')
    // the admin tool as the README runs it, with more time than the other commands need
    const run = spawnSync('npm', ['run', '--silent', 'admin', '--', 'export', '--out', out, '--json'], {
      cwd: ROOT, encoding: 'utf8', timeout: 800_000,
      env: { ...process.env, DATA_DIR: system.dataDir, ADMIN_PASSWORD: ADMIN.password, NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
    })
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '').counts.object).toBe(OBJECTS + 1)
    expect(statSync(out).size).toBeGreaterThan(HEAP_MB * 1024 * 1024 * 1.5)
  }, 900_000)
})
