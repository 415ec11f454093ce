import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { walCheckpointer } from '../../src/store/sqlite/wal-checkpoint.sqlite.js'

const dirs: string[] = []
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }) })

/** A WAL store whose own connection never checkpoints, with `rows` rows written: all of them still in the WAL. */
function storeWithWal (rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'wal-checkpoint-'))
  dirs.push(dir)
  const file = join(dir, 'store.sqlite')
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)')
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)')
  db.transaction(() => { for (let i = 0; i < rows; i++) insert.run('x'.repeat(500)) })()
  return { db, file }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('WAL checkpoints off the service\'s thread', () => {
  it('when the worker runs, then what the connection committed reaches the store\'s file without the connection checkpointing', async () => {
    const { db, file } = storeWithWal(2_000)
    const before = statSync(file).size
    const errors: unknown[] = []
    const checkpoints = walCheckpointer(file, (err) => errors.push(err), 50)
    try {
      // a checkpoint copies the pages into the file as it goes: the file grows in steps, so wait for the whole
      const deadline = Date.now() + 10_000
      while (statSync(file).size <= before + 500_000 && Date.now() < deadline) await sleep(50)
      expect(statSync(file).size).toBeGreaterThan(before + 500_000)
      // and the connection's writes go on meanwhile, never waiting for it
      db.prepare('INSERT INTO t (body) VALUES (?)').run('after')
    } finally {
      await checkpoints.stop()
      db.close()
    }
    expect(errors).toEqual([])
  })

  it('when nothing runs, then the WAL stays where it was (what the test above measures is the worker\'s)', async () => {
    const { db, file } = storeWithWal(2_000)
    const before = statSync(file).size
    await sleep(300)
    expect(statSync(file).size).toBe(before)
    db.close()
  })

  it('when stopped, then its connection is closed and it resolves; an in-memory store starts none', async () => {
    const { db, file } = storeWithWal(10)
    await walCheckpointer(file, () => {}, 10_000).stop()
    await walCheckpointer(':memory:', () => {}).stop()
    db.close()
  })
})
