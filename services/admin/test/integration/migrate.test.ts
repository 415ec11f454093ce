import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, onServer } from '@content/platform/testing'
import { afterEach, describe, expect, it } from 'vitest'

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))
const dirs: string[] = []
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }) })
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'admin-migrate-'))
  dirs.push(dir)
  return dir
}

/** `npm run admin -- migrate …` with exactly `env` (no service secret, no running service). */
function admin (args: string[], env: Record<string, string>): Promise<{ code: number | null, out: string, err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => { out += String(d) })
    child.stderr.on('data', (d) => { err += String(d) })
    child.on('exit', (code) => resolve({ code, out, err }))
  })
}
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as { store: string, from: number, to: number, applied: unknown[] }[]

describe('admin migrate', () => {
  it('brings every service\'s SQLite and media store to this release\'s schema, without a running service; then says they are up to date', async () => {
    const dir = dataDir()
    const first = await admin(['migrate', '--json'], { DATA_DIR: dir })
    expect(first.code).toBe(0)
    expect(lastJson(first.out).map((r) => [r.store, r.from, r.to])).toEqual([['auth', 0, 2], ['objects', 0, 2], ['poster', 0, 1]])
    expect(first.err).toContain('applying a schema migration') // progress on stderr
    for (const file of ['auth.sqlite', 'objects.sqlite', 'media/schema-version.json']) expect(existsSync(join(dir, file)), file).toBe(true)
    const again = await admin(['migrate'], { DATA_DIR: dir })
    expect(again.code).toBe(0)
    expect(again.out).toContain(`objects (${join(dir, 'objects.sqlite')}): schema version 2, up to date`)
  })

  it('migrates the poster schema of PostgreSQL (MEDIA_STORE=postgres) beside SQLite for the others', async () => {
    const database = await createTestDatabase('admin_migrate')
    try {
      const run = await admin(['migrate', '--json'], { DATA_DIR: dataDir(), MEDIA_STORE: 'postgres', DATABASE_URL: database.url })
      expect(run.code).toBe(0)
      expect(lastJson(run.out).find((r) => r.store === 'poster')).toMatchObject({ from: 0, to: 1 })
      const { rows } = await onServer((client) => client.query('SELECT version, name FROM poster.schema_migrations'), database.url)
      expect(rows).toEqual([{ version: 1, name: 'originals in chunks, thumbnails' }])
    } finally {
      await database.drop()
    }
  })

  it('names the service whose store cannot be migrated, and why', async () => {
    const run = await admin(['migrate'], { DATA_DIR: dataDir(), MEDIA_STORE: 'postgres', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' })
    expect(run.code).toBe(1)
    expect(run.err).toContain('error: poster: the database cannot be reached; try again shortly')
  })

  it('checks every service\'s settings before touching any store, and names each problem with its service', async () => {
    const dir = dataDir()
    const run = await admin(['migrate'], { DATA_DIR: dir, STORE: 'mongodb', MEDIA_STORE: 'local' })
    expect(run.code).toBe(2)
    expect(run.err).toContain('auth: MONGODB_URL: required when STORE=mongodb')
    expect(run.err).toContain('objects: MONGODB_URL: required when STORE=mongodb')
    expect(run.err).not.toContain('poster:')
    expect(existsSync(join(dir, 'media'))).toBe(false)
  })
})
