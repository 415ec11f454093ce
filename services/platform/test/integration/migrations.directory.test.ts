import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { mkdir, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { VERSION_FILE, migrateDirectory } from '../../src/migrations/directory.js'
import type { Migration } from '../../src/migrations/plan.js'

const root = mkdtempSync(join(tmpdir(), 'content-dir-migrations-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let dirs = 0
const MIGRATIONS: Migration<string>[] = [
  { version: 1, name: 'layout', up: async (dir) => { await mkdir(join(dir, 'files'), { recursive: true }) } },
]
const spec = (mode: 'migrate' | 'check', migrations = MIGRATIONS) => ({
  store: 'files', migrations, mode, earlierRelease: async (dir: string) => existsSync(join(dir, 'files')),
})

describe('migrateDirectory', () => {
  it('lays out a new directory, records the version in its file, and does nothing the second time', async () => {
    const dir = join(root, `d${++dirs}`)
    expect(await migrateDirectory(dir, spec('migrate'))).toMatchObject({ from: 0, to: 1, earlierRelease: false, location: dir })
    expect(JSON.parse(readFileSync(join(dir, VERSION_FILE), 'utf8'))).toEqual({ version: 1 })
    expect(await migrateDirectory(dir, spec('migrate'))).toMatchObject({ from: 1, to: 1, applied: [] })
    expect((await readdir(dir)).sort()).toEqual(['files', VERSION_FILE])
  })

  it('recognises an earlier release\'s directory, refuses it in check mode, upgrades it in place', async () => {
    const dir = join(root, `d${++dirs}`)
    await mkdir(join(dir, 'files'), { recursive: true })
    writeFileSync(join(dir, 'files', 'kept'), 'bytes')
    await expect(migrateDirectory(dir, spec('check'))).rejects.toThrow(/written by a release from before schema versions/)
    expect(await migrateDirectory(dir, spec('migrate'))).toMatchObject({ earlierRelease: true, to: 1 })
    expect(readFileSync(join(dir, 'files', 'kept'), 'utf8')).toBe('bytes')
  })

  it('refuses a directory newer than this release knows', async () => {
    const dir = join(root, `d${++dirs}`)
    await mkdir(dir)
    writeFileSync(join(dir, VERSION_FILE), '{"version": 7}')
    await expect(migrateDirectory(dir, spec('migrate'))).rejects.toThrow(/schema version 7, newer than this release knows \(1\)/)
  })

  it('two runs at once: the lock lets one migrate, the other finds it done', async () => {
    const dir = join(root, `d${++dirs}`)
    let runs = 0
    const slow: Migration<string>[] = [{ version: 1, name: 'slow', up: async () => { runs++; await new Promise((r) => setTimeout(r, 500)) } }]
    const reports = await Promise.all([migrateDirectory(dir, spec('migrate', slow)), migrateDirectory(dir, spec('migrate', slow))])
    expect(runs).toBe(1)
    expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 1])
  })
})
