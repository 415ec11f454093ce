import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { planFixtures, type FixturePlan, type TargetRef } from '../../src/core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { parentPlaced, relationSaved } from '../../src/core/write-events.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { recordChange } from '../../src/store/sqlite/outbox.sqlite.js'
import { saveRelation } from '../../src/store/sqlite/relations.sqlite.js'
import { Statements } from '../../src/store/sqlite/rows.sqlite.js'
import { registerFunctions } from '../../src/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { placeChild } from '../../src/store/sqlite/tree.sqlite.js'
import type { RecordChanges } from '../../src/store/sqlite/transactions.sqlite.js'
import { insertObject, upsertVocabulary } from '../../src/store/sqlite/writes.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'
import { NOW, TABLES, describeFixturesContract, existing } from './fixtures.contract.js'


/** The plan written one row at a time through the generic write functions: what a bulk write must equal. */
function referenceApply (st: Statements, plan: FixturePlan, now: number, record: RecordChanges): Record<string, number> {
  for (const c of plan.categories) upsertVocabulary(st, 'categories', c)
  for (const t of plan.tags) upsertVocabulary(st, 'tags', t)
  const refs: Record<string, number> = {}
  const ids = plan.objects.map((o) => {
    const id = insertObject(st, o.write, now, record)
    if (o.ref !== null) refs[o.ref] = id
    return id
  })
  const resolve = (t: TargetRef): number => ('id' in t ? t.id : refs[t.ref] ?? NaN)
  plan.objects.forEach((o, i) => {
    for (const parent of o.parents) {
      const parentId = resolve(parent)
      record(parentPlaced(ids[i] ?? NaN, parentId, placeChild(st, parentId, ids[i] ?? NaN, null).created))
    }
  })
  plan.objects.forEach((o, i) => {
    const id = ids[i] ?? NaN
    for (const r of o.relations) {
      const related = resolve(r.related)
      const saved = saveRelation(st, id, r.name, r.inverse, { related_id: related, priority: r.priority, params: r.params })
      record(relationSaved(id, r.name, related, saved.created))
    }
  })
  return refs
}

function dump (file: string): Record<string, string[]> {
  const db = new Database(file, { readonly: true })
  try {
    return Object.fromEntries([...TABLES, 'sqlite_sequence'].map((t) => [t, db.prepare(`SELECT * FROM ${t}`).all().map((r) => JSON.stringify(r)).sort()]))
  } finally {
    db.close()
  }
}

describeFixturesContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-fixtures-'))
  const file = join(dir, 'objects.sqlite')
  const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
  return { store, dump: async () => dump(file), cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

/** Everything the per-row path handles: late parents, nesting, several parents, existing targets, repeats. */
function trickyFile (old: { section: number, doc: number, image: number }) {
  return {
    categories: [{ name: 'cat-a' }, { name: 'old-cat', label: 'Relabelled' }],
    tags: [{ name: 'tag-b', label: 'B' }],
    objects: [
      { ref: 'd-early', object_type: 'document', title: 'Taken title', parents: ['inner'], tags: ['tag-new', 'tag-b', 'old-tag'], categories: ['cat-a'] },
      { ref: 'outer', object_type: 'section', title: 'Outer', parents: ['@publication'] },
      { ref: 'inner', object_type: 'section', title: 'Inner', parents: ['outer'] },
      { ref: 'twice', object_type: 'document', title: 'Taken title', parents: ['outer', 'inner', old.section, '@publication', 1], categories: ['old-cat'] },
      { object_type: 'document', title: '', parents: [old.section], custom_properties: { a: '1', b: '2' }, languages: { fr: { title: 'T' } } },
      { object_type: 'document', title: '!!!', parents: ['inner'] },
      { ref: 'img', object_type: 'image', title: 'Pic', parents: ['outer'], geo_tags: [{ latitude: 1, longitude: 2 }] },
      { ref: 'ev', object_type: 'event', title: 'Event', parents: ['inner'], date_items: [{ start_date: '2024-01-01T00:00:00Z', days: [1, 2] }] },
      {
        ref: 'rel', object_type: 'document', title: 'Rel', parents: ['inner'],
        relations: { attach: [{ related: 'img', params: { caption: 'c' } }, { related: old.image }], seealso: [{ related: 'twice', priority: 5 }, { related: old.doc }] },
      },
      {
        object_type: 'document', title: 'Rel', parents: ['outer'],
        relations: { attach: [{ related: 'img' }, { related: 'img', priority: 3, params: { x: 1 } }, { related: old.image }], seealso: [{ related: 'rel' }] },
      },
      { ref: 'late', object_type: 'section', title: 'Late', status: 'draft', parents: ['outer'] },
      { ref: 'under-late', object_type: 'document', title: 'Under late', start_date: '2030-01-01T00:00:00Z', parents: ['late', 'inner'] },
    ],
  }
}

describe('sqlite fixtures plan', () => {
  let dir: string
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'objects-fixtures-')) })
  afterEach(() => { rmSync(dir, { recursive: true, force: true }) })

  it('when a plan is applied, then every row and change event equals writing it one row at a time', async () => {
    const files = [join(dir, 'bulk.sqlite'), join(dir, 'reference.sqlite')]
    const stores = files.map((f) => openSqliteStore(f, { publicationNickname: 'publication', now: () => NOW }))
    const olds = await Promise.all(stores.map(existing))
    const outcome = planFixtures(JSON.stringify(trickyFile(olds[0] as { section: number, doc: number, image: number })), [], PUBLICATION_ID)
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
    const [bulk, other] = stores as [ObjectsStore, ObjectsStore]
    const refs = await bulk.applyFixtures(outcome.plan, NOW)
    await other.close()
    const db = new Database(files[1] as string)
    registerFunctions(db)
    db.pragma('foreign_keys = ON')
    const st = new Statements(db)
    const expected = db.transaction(() => referenceApply(st, outcome.plan, NOW, (drafts) => { for (const d of drafts) recordChange(st, d, NOW) }))()
    db.close()
    await bulk.close()
    expect(refs).toEqual(expected)
    const [got, want] = files.map(dump) as [Record<string, unknown[]>, Record<string, unknown[]>]
    expect(want.changes?.length).toBeGreaterThan(30)
    for (const table of TABLES) expect({ table, rows: got[table] }).toEqual({ table, rows: want[table] })
  })
})

describe('sqlite fixtures import, its WAL', () => {
  const tempFile = tempStoreFiles('objects-fixtures-wal-')

  it('when an import commits, then its WAL is left for a later commit to copy into the store, and one does', async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
    const size = () => statSync(file).size
    const before = size()
    // about 6 MB of text: many more pages than SQLite's automatic checkpoint waits for (1,000)
    const objects = Array.from({ length: 1_500 }, (_, i) => ({ object_type: 'document', title: `Page ${i}`, body: `${i} `.repeat(1_000), parents: ['@publication'] }))
    const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
    await store.applyFixtures(outcome.plan, NOW)
    expect(size()).toBe(before)
    // the next commit on the store's connection (its texts indexed, a create) checkpoints as usual
    await store.objects.create({
      object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'After' },
      read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
    }, NOW)
    await vi.waitFor(() => expect(size()).toBeGreaterThan(before + 4_000_000), { timeout: 5_000, interval: 20 })
    await store.close()
  })
})
