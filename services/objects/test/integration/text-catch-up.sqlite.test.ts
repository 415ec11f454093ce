import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it, vi } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { backgroundSteps, type BackgroundSteps } from '../../src/store/sqlite/background-steps.sqlite.js'
import { Commits } from '../../src/store/sqlite/commits.sqlite.js'
import { Statements } from '../../src/store/sqlite/rows.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { CATCH_UP_AT, INDEX_PENDING, TEXT_INDEX_BATCH, TEXT_INDEX_DELAY_MS, textCatchUp, textIndexer } from '../../src/store/sqlite/text-indexer.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'

const tempFile = tempStoreFiles('objects-catch-up-')

const pendingCount = (db: Database.Database) => db.prepare('SELECT COUNT(*) FROM text_pending').pluck().get() as number
const matches = (db: Database.Database, phrase: string) =>
  db.prepare('SELECT rowid FROM objects_fts WHERE objects_fts MATCH ? ORDER BY rowid').pluck().all(`"${phrase}"`)
const integrity = (db: Database.Database) => db.exec("INSERT INTO objects_fts (objects_fts, rank) VALUES ('integrity-check', 1)")

/** A closed store file holding `n` documents whose texts all wait in text_pending. */
async function pendingStore (n: number): Promise<string> {
  const file = tempFile()
  await openSqliteStore(file, { publicationNickname: 'publication' }).close()
  const db = new Database(file)
  const insert = db.prepare(`INSERT INTO objects (object_type, nickname, status, title, created, modified) VALUES ('document', ?, 'on', ?, 0, 0)`)
  db.transaction(() => { for (let i = 1; i <= n; i++) insert.run(`doc-${i}`, `Pending ${i}`) })()
  db.close()
  return file
}

/** The catch-up of a store file (only an in-memory store has none). */
function workerFor (file: string, onError: (err: unknown) => void, onEnd: () => void): BackgroundSteps {
  const worker = textCatchUp(file, onError, onEnd)
  if (worker === undefined) throw new Error(`no catch-up for ${file}`)
  return worker
}

describe('texts pending in bulk indexed by a worker thread', () => {
  it('when an import leaves more texts pending than the threshold, then searches find them at once, a worker indexes them all, and the index stays equal to its content', async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const side = new Database(file)
    const total = CATCH_UP_AT + 700
    const objects = Array.from({ length: total }, (_, i) => ({
      ref: `d${i}`, object_type: 'document', title: `Imported ${i} ${i % 100 === 7 ? 'narwhal' : 'gull'}`, parents: ['@publication'],
    }))
    const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
    if (!outcome.ok) throw new Error(outcome.errors.join('; '))
    const refs = await store.applyFixtures(outcome.plan, 1)
    const narwhals = objects.filter((o) => o.title.includes('narwhal')).map((o) => refs[o.ref])
    expect(pendingCount(side)).toBeGreaterThanOrEqual(total)
    const search = { visibility: { statuses: ['on' as const], at: null, groups: [] }, filter: { object_types: [], query: 'narwhal' }, offset: 0, limit: 100 }
    expect((await store.tree.descendants(1, 'id', search)).ids).toEqual(narwhals)
    await vi.waitFor(() => expect(pendingCount(side)).toBe(0), { timeout: 20_000, interval: 50 })
    expect(matches(side, 'narwhal')).toEqual(narwhals)
    expect(matches(side, 'gull')).toHaveLength(total - narwhals.length)
    integrity(side)
    expect((await store.tree.descendants(1, 'id', search)).ids).toEqual(narwhals)
    await store.close()
    side.close()
  })

  it('when the worker runs, then every pending text is indexed, also those added meanwhile, and its end is told', async () => {
    const file = await pendingStore(12_000)
    const db = new Database(file)
    const errors: unknown[] = []
    let ended = 0
    const catchUp = workerFor(file, (err) => errors.push(err), () => { ended++ })
    catchUp.start()
    expect(catchUp.busy()).toBe(true)
    // a write on another connection while the worker runs: it waits for the step in progress, then is taken too
    db.pragma('busy_timeout = 5000')
    db.prepare(`INSERT INTO objects (object_type, nickname, status, title, created, modified) VALUES ('document', 'late', 'on', 'Late pelican', 0, 0)`).run()
    await catchUp.settled()
    expect(errors).toEqual([])
    expect(ended).toBe(1)
    expect(catchUp.busy()).toBe(false)
    expect(pendingCount(db)).toBe(0)
    expect(matches(db, 'pending 11999')).toHaveLength(1)
    expect(matches(db, 'late pelican')).toHaveLength(1)
    integrity(db)
    db.close()
  })

  it('when the worker is stopped, then it takes no further step, what it indexed stays indexed, and a later run indexes the rest', async () => {
    const file = await pendingStore(40_000)
    const db = new Database(file)
    const indexedCount = () => db.prepare('SELECT COUNT(*) FROM objects_fts_docsize').pluck().get() as number
    const catchUp = workerFor(file, () => {}, () => {})
    catchUp.start()
    await vi.waitFor(() => expect(pendingCount(db)).toBeLessThan(40_000), { timeout: 10_000, interval: 5 })
    await catchUp.stop()
    const left = pendingCount(db)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(pendingCount(db)).toBe(left)
    // the publication's text was indexed when its store closed
    expect(indexedCount()).toBe(40_000 + 1 - left)
    catchUp.start()
    await catchUp.settled()
    expect(pendingCount(db)).toBe(0)
    expect(indexedCount()).toBe(40_001)
    integrity(db)
    db.close()
  })

  it('when a write holds the store longer than a step will wait, then the run ends quietly, told, and a later run finishes', async () => {
    const file = await pendingStore(3_000)
    const db = new Database(file)
    const errors: unknown[] = []
    let ended = 0
    const job = { statements: INDEX_PENDING, params: { limit: 1_000 }, doneAt: 0, pauseMs: 1, busyMs: 100 }
    const steps = backgroundSteps(file, job, (err) => errors.push(err), () => { ended++ })
    db.exec('BEGIN IMMEDIATE')
    steps.start()
    await steps.settled()
    db.exec('COMMIT')
    expect(errors).toEqual([])
    expect(ended).toBe(1)
    expect(pendingCount(db)).toBe(3_000)
    steps.start()
    await steps.settled()
    expect(errors).toEqual([])
    expect(ended).toBe(2)
    expect(pendingCount(db)).toBe(0)
    db.close()
  })

  it('when many texts are pending, then the indexer hands them to the worker and leaves them while it runs; few, it indexes itself', async () => {
    const file = await pendingStore(CATCH_UP_AT + 1)
    const db = new Database(file)
    const st = new Statements(db)
    const commits = new Commits(st, () => 0)
    let running = false
    let starts = 0
    const catchUp: BackgroundSteps = {
      start: () => { starts++; running = true },
      busy: () => running,
      settled: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    }
    const indexer = textIndexer(st, commits, (err) => { throw err }, catchUp)
    const afterDelay = () => new Promise((resolve) => setTimeout(resolve, TEXT_INDEX_DELAY_MS * 3))
    expect(pendingCount(db)).toBe(CATCH_UP_AT + 1)
    indexer.schedule()
    await afterDelay()
    expect(starts).toBe(1)
    expect(pendingCount(db)).toBe(CATCH_UP_AT + 1)
    indexer.schedule()
    await afterDelay()
    expect(starts).toBe(1)
    // the worker ended having taken most of them: the indexer takes the rest in its own batches
    db.exec(`DELETE FROM text_pending WHERE id IN (SELECT id FROM text_pending ORDER BY id LIMIT ${CATCH_UP_AT + 1 - TEXT_INDEX_BATCH - 10})`)
    running = false
    indexer.schedule()
    await vi.waitFor(() => expect(pendingCount(db)).toBe(0), { timeout: 2_000, interval: 20 })
    expect(starts).toBe(1)
    db.close()
  })

  it('when there is no worker (an in-memory store has no file to open), then the indexer indexes many texts itself', async () => {
    const file = await pendingStore(CATCH_UP_AT + 300)
    const db = new Database(file)
    const st = new Statements(db)
    expect(textCatchUp(':memory:', () => {}, () => {})).toBeUndefined()
    const indexer = textIndexer(st, new Commits(st, () => 0), (err) => { throw err })
    indexer.schedule()
    await vi.waitFor(() => expect(pendingCount(db)).toBe(0), { timeout: 5_000, interval: 20 })
    expect(matches(db, 'pending 2300')).toHaveLength(1)
    integrity(db)
    db.close()
  })
})

describe('closing while the worker runs', () => {
  // A process of its own, whose only work left is the close: the worker never keeps a process alive while it
  // runs, and the close waited for it with nothing else holding the process, which then exited in the middle of
  // the close (the connection never closed, the caller's await never answered). It runs the built service, as
  // `npm start` does (`npm test` builds first).
  const dist = new URL('../../dist/', import.meta.url).href
  const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href
  const script = `
    const { openSqliteStore } = await import('${dist}store/sqlite/sqlite.store.js')
    const { planFixtures } = await import('${dist}core/fixtures.plan.js')
    const { default: Database } = await import('${driver}')
    const file = process.argv[2]
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const objects = Array.from({ length: 40000 }, (_, i) => ({ ref: 'd' + i, object_type: 'document', title: 'Imported ' + i + ' gull'.repeat(40) }))
    const outcome = planFixtures(JSON.stringify({ objects }), [], 1)
    await store.applyFixtures(outcome.plan, 1)
    // closed once the worker has indexed some of the texts and not all
    const side = new Database(file, { readonly: true })
    const pending = () => side.prepare('SELECT COUNT(*) FROM text_pending').pluck().get()
    const before = pending()
    const giveUp = Date.now() + 20000
    for (let n = before; n === before || n === 0; n = pending()) {
      if (n === 0) throw new Error('the worker indexed every text before the close')
      if (Date.now() > giveUp) throw new Error('the worker indexed no text in 20 s')
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    side.close()
    await store.close()
    console.log('closed')
  `

  it('when the store closes in a process with nothing else to do, then the close finishes and the texts left are indexed', async () => {
    const file = tempFile()
    // a script file: under `node --input-type=module -e` the store's worker (evaluated CommonJS) takes the flag too and fails
    const dir = mkdtempSync(join(tmpdir(), 'objects-close-'))
    writeFileSync(join(dir, 'close.mjs'), script)
    const child = spawn(process.execPath, [join(dir, 'close.mjs'), file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString() })
    // a close that never ends must not outlive the test
    const kill = setTimeout(() => child.kill('SIGKILL'), 50_000)
    const code = await new Promise((resolve) => child.once('exit', resolve))
    clearTimeout(kill)
    rmSync(dir, { recursive: true, force: true })
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'closed' })
    const db = new Database(file)
    expect(pendingCount(db)).toBe(0)
    expect(matches(db, 'gull gull').length).toBe(40_000)
    integrity(db)
    db.close()
  }, 60_000)
})
