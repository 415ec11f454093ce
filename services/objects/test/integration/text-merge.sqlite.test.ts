import Database from 'better-sqlite3'
import { describe, expect, it, vi } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { SCHEMA, registerFunctions } from '../../src/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { ensureTextIndex } from '../../src/store/sqlite/text-index.sqlite.js'
import { MERGE_DELAY_MS, backgroundTextMerge, mergeStep } from '../../src/store/sqlite/text-merge.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'

const tempFile = tempStoreFiles('objects-merge-')

/** How many segments the text index has: each holds its own rows of objects_fts_idx. */
const segments = (db: Database.Database) => db.prepare('SELECT COUNT(DISTINCT segid) FROM objects_fts_idx').pluck().get() as number
const matches = (db: Database.Database, phrase: string) =>
  db.prepare('SELECT rowid FROM objects_fts WHERE objects_fts MATCH ? ORDER BY rowid').pluck().all(`"${phrase}"`)

/** An index built as bulk imports build it: a batch of rows indexed in one statement, several times. */
function bulkIndexed (): Database.Database {
  const db = new Database(':memory:')
  registerFunctions(db)
  db.exec(SCHEMA)
  ensureTextIndex(db)
  db.exec('DROP TRIGGER objects_fts_insert')
  const insert = db.prepare(`INSERT INTO objects (object_type, nickname, status, title, body, created, modified)
    VALUES ('document', @nickname, 'on', @title, @body, 0, 0)`)
  for (let batch = 0; batch < 6; batch++) {
    const first = batch * 300 + 1
    db.transaction(() => {
      for (let i = first; i < first + 300; i++) insert.run({ nickname: `n${i}`, title: `Item ${i} ${i % 50 === 0 ? 'wombat' : 'otter'}`, body: `text ${i * 7919} lorem ipsum` })
      db.prepare('INSERT INTO objects_fts (rowid, title, description, body) SELECT id, title, description, body FROM objects WHERE id >= ?').run(first)
    })()
  }
  return db
}

describe('the text index merged in the background', () => {
  it('when an index holds several segments, then steps merge it into one and every search answers as before', async () => {
    const db = bulkIndexed()
    expect(segments(db)).toBeGreaterThan(1)
    const before = ['wombat', 'otter', 'item 1234', `text ${777 * 7919}`].map((p) => matches(db, p))
    const errors: unknown[] = []
    const merge = backgroundTextMerge(db, (err) => errors.push(err), 0)
    merge.start()
    await merge.settled()
    expect(errors).toEqual([])
    expect(segments(db)).toBe(1)
    expect(['wombat', 'otter', 'item 1234', `text ${777 * 7919}`].map((p) => matches(db, p))).toEqual(before)
    expect(before[0]).toHaveLength(36)
    expect(mergeStep(db)).toBe(false)
    db.close()
  })

  it('when imports keep coming, then the merge waits for the delay after the last of them', async () => {
    const db = bulkIndexed()
    const merge = backgroundTextMerge(db, () => {}, 300)
    merge.start()
    await new Promise((resolve) => setTimeout(resolve, 200))
    merge.start() // another import: the delay begins again
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(segments(db)).toBeGreaterThan(1)
    await merge.settled()
    expect(segments(db)).toBe(1)
    db.close()
  })

  it('when the index is one segment or empty, then a step changes nothing', () => {
    const db = new Database(':memory:')
    registerFunctions(db)
    db.exec(SCHEMA)
    ensureTextIndex(db)
    expect(mergeStep(db)).toBe(false)
    db.close()
  })

  it('when a step fails, then the error is reported and the run ends; stop ends a run at once', async () => {
    const db = bulkIndexed()
    const errors: unknown[] = []
    const failing = backgroundTextMerge(db, (err) => errors.push(err), 0)
    db.exec('DROP TABLE objects_fts') // the command of a step then fails
    failing.start()
    await failing.settled()
    expect(errors).toHaveLength(1)
    const other = bulkIndexed()
    const stopped = backgroundTextMerge(other, () => {}, 0)
    stopped.start()
    stopped.stop()
    await stopped.settled()
    expect(segments(other)).toBeGreaterThan(1)
    db.close()
    other.close()
  })

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
    expect(segments(db)).toBeGreaterThan(1)
    await vi.waitFor(() => { expect(segments(db)).toBe(1) }, { timeout: MERGE_DELAY_MS + 10_000, interval: 50 })
    const q = { visibility: { statuses: ['on' as const], at: null, groups: [] }, filter: { object_types: [], query: 'quokka' }, offset: 0, limit: 100 }
    expect((await store.tree.descendants(PUBLICATION_ID, 'id', q)).ids).toHaveLength(4)
    db.close()
    await store.close()
  })
})
