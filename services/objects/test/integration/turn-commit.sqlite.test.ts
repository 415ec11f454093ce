import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { UniqueConflict } from '../../src/core/conflicts.js'
import { Commits } from '../../src/store/sqlite/commits.sqlite.js'
import { changesPort } from '../../src/store/sqlite/outbox.sqlite.js'
import { Statements } from '../../src/store/sqlite/rows.sqlite.js'
import { registerFunctions } from '../../src/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'

const NOW = Date.UTC(2026, 0, 1)
const PUBLICATION = 1

let dir: string
let db: Database.Database
let st: Statements
let commits: Commits
let transactions: number

/** Puts a row in a table of unique keys and records an event for the publication. */
const putKey = (key: string) => commits.write((record) => {
  st.run('INSERT INTO turn_keys (key) VALUES (@key)', { key })
  record([{ type: 'object.updated', object_id: PUBLICATION }])
  return key
})

const keys = () => st.all<{ key: string }>('SELECT key FROM turn_keys ORDER BY key').map((r) => r.key)
const events = () => st.all<{ seq: number }>('SELECT seq FROM changes ORDER BY seq').map((r) => r.seq)

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'objects-turn-commit-'))
  const file = join(dir, 'store.sqlite')
  await openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW }).close()
  db = new Database(file)
  registerFunctions(db)
  db.exec('CREATE TABLE turn_keys (key TEXT NOT NULL UNIQUE)')
  st = new Statements(db)
  transactions = 0
  commits = new Commits(st, () => NOW, { committed: () => { transactions++ }, sync: () => Promise.resolve() })
})

afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('sqlite writes asked for in one turn commit together', () => {
  it('when several writes are asked for in one turn, then they commit in one transaction, in the order asked, and listeners hear of it once', async () => {
    let told = 0
    commits.listeners.add(() => { told++ })
    const answers = await Promise.all(['k1', 'k2', 'k3', 'k4'].map(putKey))
    expect(answers).toEqual(['k1', 'k2', 'k3', 'k4'])
    expect(keys()).toEqual(['k1', 'k2', 'k3', 'k4'])
    expect(transactions).toBe(1)
    expect(told).toBe(1)
    const seqs = events()
    expect(seqs).toHaveLength(4)
    expect(commits.committed).toBe(seqs.at(-1))
  })

  it('when a write is asked for, then it runs at once (what runs after it sees it) and is answered once its turn commits, waiting for no later turn', async () => {
    let answered = false
    const written = putKey('k1').then((key) => { answered = true; return key })
    expect(keys()).toEqual(['k1']) // a check that follows it, as the next write's would, sees it
    expect(db.inTransaction).toBe(true)
    await Promise.resolve()
    expect(answered).toBe(false) // not before the commit
    await new Promise((resolve) => setImmediate(resolve))
    expect(db.inTransaction).toBe(false)
    await expect(written).resolves.toBe('k1')
    await putKey('k2')
    expect(transactions).toBe(2)
  })

  it('while a turn is open, then its events are not told and settled() waits for its commit', async () => {
    const changes = changesPort(st, () => commits.visibleUpTo())
    const before = await changes.after(0, 100)
    const written = putKey('k1')
    let settled = false
    void commits.settled().then(() => { settled = true })
    expect(await changes.after(0, 100)).toEqual(before) // the open turn's event is not told
    expect((await changes.bounds()).last).toBe(before.at(-1)?.seq ?? 0)
    expect(settled).toBe(false)
    await written
    expect(settled).toBe(true)
    expect((await changes.after(0, 100)).map((e) => e.seq)).toEqual([...before.map((e) => e.seq), commits.committed])
  })

  it('when one write of a turn fails, then it alone fails and leaves nothing, and the others commit', async () => {
    const outcomes = await Promise.allSettled([
      putKey('k1'),
      commits.write((record) => {
        st.run("INSERT INTO turn_keys (key) VALUES ('k2')")
        record([{ type: 'object.updated', object_id: PUBLICATION }])
        st.run("INSERT INTO turn_keys (key) VALUES ('k1')") // the unique key refuses it
        return 'never'
      }),
      commits.write(() => { throw new Error('refused by the write itself') }),
      putKey('k3'),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueConflict)
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('refused by the write itself'))
    expect(keys()).toEqual(['k1', 'k3']) // not k2: the failed write's first row went with it
    expect(events()).toHaveLength(2)
    expect(transactions).toBe(1)
  })

  it('when a failure ends the whole transaction, then every write of the turn so far fails and none is kept, and settled() fails too', async () => {
    let told = 0
    commits.listeners.add(() => { told++ })
    const first = putKey('k1')
    const settled = commits.settled()
    const failed = commits.write(() => {
      db.exec('ROLLBACK') // as SQLite does on a full disk or an I/O error
      throw new Error('SQLITE_FULL')
    })
    const outcomes = await Promise.allSettled([first, failed, settled])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(keys()).toEqual([])
    expect(events()).toEqual([])
    expect(transactions).toBe(0)
    expect(told).toBe(0)
    expect(db.inTransaction).toBe(false)
    await expect(putKey('k4')).resolves.toBe('k4') // the connection still writes
    expect(keys()).toEqual(['k4'])
  })

  it('when the commit fails, then every write of the turn fails and none is kept', async () => {
    const writes = [putKey('k1'), putKey('k2')]
    // a statement SQLite refuses at COMMIT: a deferred foreign key left dangling
    db.exec('CREATE TABLE turn_refs (ref TEXT REFERENCES turn_keys(key) DEFERRABLE INITIALLY DEFERRED)')
    const dangling = commits.write(() => st.run("INSERT INTO turn_refs (ref) VALUES ('nowhere')"))
    const outcomes = await Promise.allSettled([...writes, dangling])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(db.inTransaction).toBe(false)
    expect(keys()).toEqual([])
    expect(transactions).toBe(0)
  })

  it('when a listener asks for a write as it hears of a commit, then that write opens the next turn and is flushed with it', async () => {
    let followUp: Promise<string> | undefined
    commits.listeners.add(() => { followUp ??= putKey('k2') })
    await putKey('k1')
    await expect(followUp).resolves.toBe('k2')
    expect(keys()).toEqual(['k1', 'k2'])
    expect(transactions).toBe(2) // each commit counted, so each is flushed before its answers
  })

  it('when a transaction must run now, then the writes asked for before it commit first', async () => {
    const queued = putKey('k1')
    const now = commits.writeNow(() => keys())
    await expect(now).resolves.toEqual(['k1'])
    await expect(queued).resolves.toBe('k1')
    const unseen = putKey('k2')
    await expect(commits.unseen(() => keys())).resolves.toEqual(['k1', 'k2'])
    await unseen
  })

  it('when a transaction run now records events, then it commits before it answers, counted for flushing, and listeners hear of it', async () => {
    let told = 0
    commits.listeners.add(() => { told++ })
    await expect(commits.writeNow((record) => {
      st.run("INSERT INTO turn_keys (key) VALUES ('k1')")
      record([{ type: 'object.updated', object_id: PUBLICATION }])
      return 'done'
    })).resolves.toBe('done')
    expect(db.inTransaction).toBe(false)
    expect(keys()).toEqual(['k1'])
    expect(transactions).toBe(1)
    expect(told).toBe(1)
    expect(commits.committed).toBe(events().at(-1))
  })

  it('when a transaction run now fails, then nothing of it is kept and the next write commits on its own', async () => {
    await expect(commits.writeNow((record) => {
      st.run("INSERT INTO turn_keys (key) VALUES ('k1')")
      record([{ type: 'object.updated', object_id: PUBLICATION }])
      st.run("INSERT INTO turn_keys (key) VALUES ('k1')")
    })).rejects.toBeInstanceOf(UniqueConflict)
    expect(db.inTransaction).toBe(false)
    expect(keys()).toEqual([])
    expect(events()).toEqual([])
    expect(transactions).toBe(0)
    await expect(putKey('k2')).resolves.toBe('k2')
    expect(keys()).toEqual(['k2'])
  })
})
