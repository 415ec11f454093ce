import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { SchemaVersionError } from '../../src/migrations/plan.js'
import { migrateSqlite, type SqliteMigration } from '../../src/migrations/sqlite.js'

const dir = mkdtempSync(join(tmpdir(), 'content-migrations-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const open = (file = join(dir, `store-${++files}.sqlite`)) => {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('busy_timeout = 5000')
  return db
}
type Db = Database.Database

const MIGRATIONS: SqliteMigration<Db>[] = [
  { version: 1, name: 'notes', up: (db) => { db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)') } },
  { version: 2, name: 'note authors', up: (db) => { db.exec("ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT ''") } },
]
const spec = (mode: 'migrate' | 'check', migrations = MIGRATIONS) => ({
  store: 'notes', migrations, mode, earlierRelease: (db: Db) => db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'notes'").get() !== undefined,
})
const version = (db: Db) => db.pragma('user_version', { simple: true })

describe('migrateSqlite', () => {
  it('creates a new file\'s schema, records its version in user_version, and does nothing the second time', () => {
    const db = open()
    expect(migrateSqlite(db, spec('migrate'))).toMatchObject({ from: 0, to: 2, earlierRelease: false, applied: [{ version: 1 }, { version: 2 }] })
    expect(version(db)).toBe(2)
    db.prepare("INSERT INTO notes (text, author) VALUES ('kept', 'me')").run()
    expect(migrateSqlite(db, spec('migrate'))).toMatchObject({ from: 2, to: 2, applied: [] })
    expect(migrateSqlite(db, spec('check'))).toMatchObject({ from: 2, to: 2, applied: [] })
    expect(db.prepare('SELECT text, author FROM notes').all()).toEqual([{ text: 'kept', author: 'me' }])
    db.close()
  })

  it('recognises a file of an earlier release (its tables, no version) and upgrades it in place, data intact', () => {
    const db = open()
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL); INSERT INTO notes (text) VALUES ('old')")
    expect(() => migrateSqlite(db, spec('check'))).toThrow(/written by a release from before schema versions/)
    expect(migrateSqlite(db, spec('migrate'))).toMatchObject({ from: 0, to: 2, earlierRelease: true })
    expect(db.prepare('SELECT text, author FROM notes').all()).toEqual([{ text: 'old', author: '' }])
    db.close()
  })

  it('check mode refuses a file behind this release, naming the command to run; nothing is written', () => {
    const db = open()
    migrateSqlite(db, spec('migrate', MIGRATIONS.slice(0, 1)))
    expect(() => migrateSqlite(db, spec('check'))).toThrow(/has schema version 1; this release needs version 2: run `npm run admin -- migrate`/)
    expect(version(db)).toBe(1)
    db.close()
  })

  it('refuses a file newer than this release knows, in either mode', () => {
    const db = open()
    migrateSqlite(db, spec('migrate'))
    for (const mode of ['migrate', 'check'] as const) {
      expect(() => migrateSqlite(db, spec(mode, MIGRATIONS.slice(0, 1)))).toThrow(SchemaVersionError)
    }
    db.close()
  })

  it('a migration that fails leaves nothing of itself and the version where it was', () => {
    const db = open()
    const failing: SqliteMigration<Db>[] = [...MIGRATIONS, {
      version: 3, name: 'broken', up: (d) => { d.exec('CREATE TABLE half (x)'); throw new Error('the back-fill failed') },
    }]
    expect(() => migrateSqlite(db, spec('migrate', failing))).toThrow('the back-fill failed')
    expect(version(db)).toBe(2)
    expect(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined()
    db.close()
  })

  it('two processes opening one new file at once: one migrates, the other waits and finds it done', async () => {
    const file = join(dir, 'shared.sqlite')
    open(file).close()
    const script = resolve(import.meta.dirname, '../support/migrate-sqlite-child.mjs')
    const runOne = () => new Promise<{ code: number | null, out: string }>((done) => {
      const child = spawn(process.execPath, [script, file], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      child.stdout.on('data', (chunk) => { out += String(chunk) })
      child.on('exit', (code) => done({ code, out }))
    })
    const results = await Promise.all([runOne(), runOne()])
    expect(results.map((r) => r.code)).toEqual([0, 0])
    const reports = results.map((r) => JSON.parse(r.out) as { applied: unknown[], to: number })
    expect(reports.map((r) => r.applied.length).sort()).toEqual([0, 1])
    expect(reports.map((r) => r.to)).toEqual([1, 1])
    const db = open(file)
    // the slow migration appends a row each time it runs: once
    expect(db.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 1 })
    db.close()
  }, 60_000)
})
