import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '@content/platform'
import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { objectsEnv } from '../../src/config.js'
import { SQLITE_CACHE_MB, applyPragmas } from '../../src/store/sqlite/schema.sqlite.js'

describe('SQLite page cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-cache-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const cacheOf = (cacheMb?: number) => {
    const db = new Database(join(dir, `${Math.random()}.sqlite`))
    try {
      applyPragmas(db, cacheMb)
      return db.pragma('cache_size', { simple: true })
    } finally {
      db.close()
    }
  }

  it('when nothing is set, then the cache is the store\'s default, far above SQLite\'s own 2 MiB; a given size is used as it is', () => {
    expect(SQLITE_CACHE_MB).toBeGreaterThanOrEqual(32)
    expect(cacheOf()).toBe(-SQLITE_CACHE_MB * 1024)
    expect(cacheOf(8)).toBe(-8 * 1024)
  })

  it('when SQLITE_CACHE_MB is read from the environment, then the default is the store\'s and nonsense is refused', () => {
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV }).SQLITE_CACHE_MB).toBe(SQLITE_CACHE_MB)
    expect(loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, SQLITE_CACHE_MB: '256' }).SQLITE_CACHE_MB).toBe(256)
    for (const bad of ['0', '-1', 'lots', '1.5']) {
      expect(() => loadConfig(objectsEnv, { ...TEST_IDENTITY_ENV, SQLITE_CACHE_MB: bad })).toThrow('SQLITE_CACHE_MB')
    }
  })
})
