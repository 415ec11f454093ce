import Database from 'better-sqlite3'
import { describe, expect, it, vi } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { SCHEMA, registerFunctions } from '../../src/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { ensureTextIndex } from '../../src/store/sqlite/text-index.sqlite.js'
import { MERGE_DELAY_MS, backgroundTextMerge } from '../../src/store/sqlite/text-merge.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'

const tempFile = tempStoreFiles('objects-merge-')

/** How many segments the text index has: each holds its own rows of objects_fts_idx. */
const segments = (db: Database.Database) => db.prepare('SELECT COUNT(DISTINCT segid) FROM objects_fts_idx').pluck().get() as number
const matches = (db: Database.Database, phrase: string) =>
  db.prepare('SELECT rowid FROM objects_fts WHERE objects_fts MATCH ? ORDER BY rowid').pluck().all(`"${phrase}"`)

/** A store file with the schema and the text index, in WAL mode as the service keeps it. */
function indexed (): { file: string, db: Database.Database } {
  const file = tempFile()
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  registerFunctions(db)
  db.exec(SCHEMA)
  ensureTextIndex(db)
  return { file, db }
}

/**
 * An index built as bulk imports build it: a batch of rows indexed in one statement, several times
 * (`batches` of `rows`; the default one merges in one step, 10 of 2,000 take ten).
 */
function bulkIndexed (batches = 6, rows = 300): { file: string, db: Database.Database } {
  const { file, db } = indexed()
  db.exec('DROP TRIGGER objects_text_insert')
  const insert = db.prepare(`INSERT INTO objects (object_type, nickname, status, title, body, created, modified)
    VALUES ('document', @nickname, 'on', @title, @body, 0, 0)`)
  for (let batch = 0; batch < batches; batch++) {
    const first = batch * rows + 1
    db.transaction(() => {
      for (let i = first; i < first + rows; i++) insert.run({ nickname: `n${i}`, title: `Item ${i} ${i % 50 === 0 ? 'wombat' : 'otter'}`, body: `text ${i * 7919} lorem ipsum` })
      db.prepare('INSERT INTO objects_fts (rowid, title, description, body) SELECT id, title, description, body FROM objects WHERE id >= ?').run(first)
    })()
  }
  return { file, db }
}

const PHRASES = ['wombat', 'otter', 'item 1234', `text ${777 * 7919}`]

describe('the text index merged in the background', () => {
  it('when an index holds several segments, then a worker merges it into one, and every search answers as before, also while it runs', async () => {
    const { file, db } = bulkIndexed()
    expect(segments(db)).toBeGreaterThan(1)
    const before = PHRASES.map((p) => matches(db, p))
    const errors: unknown[] = []
    const merge = backgroundTextMerge(file, (err) => errors.push(err), 0)
    // this connection holds a read transaction through the whole merge, and reads on: WAL lets the
    // worker's steps commit meanwhile, and this snapshot answers as before
    db.exec('BEGIN')
    const segmentsBefore = segments(db)
    merge.start()
    const during: unknown[][][] = []
    const reading = setInterval(() => { during.push(PHRASES.map((p) => matches(db, p))) }, 1)
    await merge.settled()
    clearInterval(reading)
    expect(errors).toEqual([])
    // starting a worker alone takes longer than a millisecond
    expect(during.length).toBeGreaterThan(0)
    for (const seen of during) expect(seen).toEqual(before)
    expect(segments(db)).toBe(segmentsBefore)
    db.exec('COMMIT')
    expect(segments(db)).toBe(1)
    expect(PHRASES.map((p) => matches(db, p))).toEqual(before)
    expect(before[0]).toHaveLength(36)
    db.close()
  })

  it('when imports keep coming, then the merge waits for the delay after the last of them', async () => {
    const { file, db } = bulkIndexed()
    const merge = backgroundTextMerge(file, () => {}, 300)
    merge.start()
    await new Promise((resolve) => setTimeout(resolve, 200))
    merge.start() // another import: the delay begins again
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(segments(db)).toBeGreaterThan(1)
    await merge.settled()
    expect(segments(db)).toBe(1)
    db.close()
  })

  it('when the index is one segment or empty, then a merge ends without changing it', async () => {
    for (const { file, db } of [indexed(), bulkIndexed()]) {
      const errors: unknown[] = []
      for (let run = 0; run < 2; run++) {
        const merge = backgroundTextMerge(file, (err) => errors.push(err), 0)
        merge.start()
        await merge.settled()
      }
      const version = db.pragma('data_version', { simple: true })
      const once = backgroundTextMerge(file, (err) => errors.push(err), 0)
      once.start()
      await once.settled()
      expect(errors).toEqual([])
      expect(segments(db)).toBeLessThanOrEqual(1)
      // the last run committed nothing: another connection's commit moves data_version
      expect(db.pragma('data_version', { simple: true })).toBe(version)
      db.close()
    }
  })

  it('when a step fails, then the error is reported and the run ends; stop ends a run at once; an in-memory store is never merged', async () => {
    const { file, db } = bulkIndexed()
    const errors: unknown[] = []
    const failing = backgroundTextMerge(file, (err) => errors.push(err), 0)
    db.exec('DROP TABLE objects_fts') // the command of a step then fails
    failing.start()
    await failing.settled()
    expect(errors).toHaveLength(1)
    const other = bulkIndexed()
    const stopped = backgroundTextMerge(other.file, () => {}, 0)
    stopped.start()
    await stopped.stop()
    expect(segments(other.db)).toBeGreaterThan(1)
    const memory = backgroundTextMerge(':memory:', (err) => errors.push(err), 0)
    memory.start()
    await memory.settled()
    expect(errors).toHaveLength(1)
    db.close()
    other.db.close()
  })

  it('when a merge is stopped while it runs, then it ends after the step in progress, and the next run finishes it', async () => {
    const { file, db } = bulkIndexed(10, 2_000)
    const before = PHRASES.map((p) => matches(db, p))
    const version = () => db.pragma('data_version', { simple: true })
    const first = version()
    const merge = backgroundTextMerge(file, () => {}, 0)
    merge.start()
    // another connection's commit moves data_version: the first step is in, twenty milliseconds before the next
    await vi.waitFor(() => { expect(version()).not.toBe(first) }, { timeout: 10_000, interval: 1 })
    await merge.stop()
    const stoppedAt = version()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(version()).toBe(stoppedAt)
    expect(segments(db)).toBeGreaterThan(1)
    expect(PHRASES.map((p) => matches(db, p))).toEqual(before)
    const next = backgroundTextMerge(file, () => {}, 0)
    next.start()
    await next.settled()
    expect(segments(db)).toBe(1)
    expect(PHRASES.map((p) => matches(db, p))).toEqual(before)
    db.close()
  })

  it('when writes keep adding segments while a merge runs, then the run ends after about one rewrite of the index it began with', async () => {
    const { file, db } = bulkIndexed(10, 2_000)
    db.pragma('busy_timeout = 5000')
    const indexRows = db.prepare('SELECT COUNT(*) FROM objects_fts_data').pluck().get() as number
    const insert = db.prepare(`INSERT INTO objects (object_type, nickname, status, title, body, created, modified)
      VALUES ('document', @nickname, 'on', @title, 'late', 0, 0)`)
    const indexNew = db.prepare("INSERT INTO objects_fts (rowid, title, description, body) VALUES (@id, @title, '', 'late')")
    let added = 0
    // a write a few milliseconds apart, each its own segment, as the text indexer's batches add them
    const write = () => {
      added++
      const title = `late ${added} wombat`
      indexNew.run({ id: insert.run({ nickname: `late${added}`, title }).lastInsertRowid, title })
    }
    const dataVersion = () => db.pragma('data_version', { simple: true }) as number
    const merge = backgroundTextMerge(file, () => {}, 0)
    const first = dataVersion()
    merge.start()
    await vi.waitFor(() => { expect(dataVersion()).not.toBe(first) }, { timeout: 10_000, interval: 1 })
    const writing = setInterval(write, 3)
    // without a budget every new segment starts the rewrite over, and the run only ends when the writes stop
    const ended = await Promise.race([merge.settled().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 30_000))])
    clearInterval(writing)
    const writesDuring = added
    await merge.stop()
    expect(ended).toBe(true)
    expect(writesDuring).toBeGreaterThan(10)
    // every search still finds what it should, the late writes included
    expect(matches(db, 'wombat')).toHaveLength(400 + added)
    expect(db.prepare('SELECT COUNT(*) FROM objects_fts_data').pluck().get()).toBeGreaterThan(indexRows / 2)
    db.close()
  }, 40_000)

  it('when fixtures are imported into a store, then its index ends in one segment after the merge delay, and searches find the imported objects', { timeout: MERGE_DELAY_MS + 20_000 }, async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const plan = (objects: object[]) => {
      const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('; '))
      return outcome.plan
    }
    const db = new Database(file, { readonly: true })
    for (let batch = 0; batch < 4; batch++) {
      await store.applyFixtures(plan(Array.from({ length: 200 }, (_, i) => ({
        object_type: 'document', title: `Batch ${batch} entry ${i}${i === 7 ? ' quokka' : ''}`, body: `number ${(batch * 200 + i) * 7919}`, parents: ['@publication'],
      }))), batch)
    }
    // their texts indexed a batch at a time, long before the merge begins
    await vi.waitFor(() => { expect(db.prepare('SELECT COUNT(*) FROM text_pending').pluck().get()).toBe(0) }, { timeout: 5_000, interval: 20 })
    expect(segments(db)).toBeGreaterThan(1)
    await vi.waitFor(() => { expect(segments(db)).toBe(1) }, { timeout: MERGE_DELAY_MS + 10_000, interval: 50 })
    const q = { visibility: { statuses: ['on' as const], at: null, groups: [] }, filter: { object_types: [], query: 'quokka' }, offset: 0, limit: 100 }
    expect((await store.tree.descendants(PUBLICATION_ID, 'id', q)).ids).toHaveLength(4)
    db.close()
    await store.close()
  })
})
