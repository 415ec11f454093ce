import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, loadConfig } from '@content/platform'
import { SchemaVersionError } from '@content/platform/migrations'
import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { objectsEnv } from '../../src/config.js'
import { migrateStore, openStore } from '../../src/store/open-store.js'
import { OBJECTS_SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.sqlite.js'

const log = createLogger({ service: 'objects-test', level: 'silent' })
const dirs: string[] = []
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }) })
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-schema-'))
  dirs.push(dir)
  return dir
}
const config = (dir: string, migrate: boolean) => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, DATA_DIR: dir, MIGRATE_ON_START: String(migrate) })
const onFile = <T>(dir: string, read: (db: Database.Database) => T): T => {
  const db = new Database(join(dir, 'objects.sqlite'))
  try {
    return read(db)
  } finally {
    db.close()
  }
}
const LATEST = OBJECTS_SQLITE_MIGRATIONS.length

describe('the objects store\'s schema version (SQLite)', () => {
  it('a new store is created at the latest version, recorded in user_version', async () => {
    const dir = dataDir()
    const { store } = await openStore(config(dir, true), log)
    await store.close()
    expect(onFile(dir, (db) => db.pragma('user_version', { simple: true }))).toBe(LATEST)
  })

  it('with MIGRATE_ON_START=false, an empty data directory is refused, saying what to run, and `migrate` makes it servable', async () => {
    const dir = dataDir()
    await expect(openStore(config(dir, false), log)).rejects.toThrow(new RegExp(`has no schema yet; this release needs version ${LATEST}: run \`npm run admin -- migrate\``))
    expect(await migrateStore(config(dir, false), log)).toMatchObject([{ store: 'objects', from: 0, to: LATEST }])
    const { store } = await openStore(config(dir, false), log)
    expect(await store.objects.get({ id: 1 })).toMatchObject({ object_type: 'area' })
    await store.close()
  })

  it('a store newer than this release is refused, whatever MIGRATE_ON_START says', async () => {
    const dir = dataDir()
    await (await openStore(config(dir, true), log)).store.close()
    onFile(dir, (db) => db.pragma(`user_version = ${LATEST + 1}`))
    for (const migrate of [true, false]) {
      await expect(openStore(config(dir, migrate), log)).rejects.toThrow(SchemaVersionError)
    }
  })

  it('an own field added since the store was made: `check` refuses it naming the field, `migrate` adds its column with the default', async () => {
    const dir = dataDir()
    const { store } = await openStore(config(dir, true), log)
    await store.close()
    onFile(dir, (db) => db.exec('ALTER TABLE objects DROP COLUMN comments'))
    await expect(openStore(config(dir, false), log)).rejects.toThrow(/no column yet for the own fields comments: run `npm run admin -- migrate`/)
    const { store: again } = await openStore(config(dir, true), log)
    expect(await again.objects.get({ id: 1 })).toMatchObject({ comments: '' })
    await again.close()
  })

  it('STORE=postgres takes a DATABASE_URL, and is refused without one', () => {
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, STORE: 'postgres', DATABASE_URL: 'postgres://db/content' }).STORE).toBe('postgres')
    expect(() => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, STORE: 'postgres' })).toThrow('DATABASE_URL')
  })
})
