import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { composeStore } from '../../src/core/composed-store.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { RowByRowImport } from '../../src/core/writes/fixtures.rows.js'
import { openSqliteAdapter, openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { tempStoreFiles } from '../support/temp-store.js'

const NOW = 1_700_000_000_000

/**
 * A store that imports a plan one row at a time, through the write steps every write uses (RowByRowImport,
 * in one write transaction): what the bulk path must equal.
 */
function rowByRowStore (file: string): ObjectsStore {
  const adapter = openSqliteAdapter(file, { publicationNickname: 'publication', now: () => NOW })
  return composeStore({ ...adapter, importInBulk: (work) => adapter.write((steps) => work(new RowByRowImport(steps))) }, { revisionsKeep: null })
}

const TABLES = ['objects', 'tree', 'closure', 'relations', 'tags', 'object_tags', 'categories', 'object_categories',
  'custom_properties', 'translations', 'geo_tags', 'date_items', 'changes', 'sqlite_sequence',
  'child_counts', 'child_restricted', 'descendant_counts', 'descendant_restricted']

function dump (file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true })
  try {
    return Object.fromEntries(TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t}`).all().map((r) => JSON.stringify(r)).sort()]))
  } finally {
    db.close()
  }
}

/** An existing tree and relations for the file to join: a section with children, a document related to an image. */
async function existing (store: ObjectsStore): Promise<{ section: number, doc: number, image: number }> {
  const write = (object_type: 'section' | 'document' | 'image', title: string, parents: number[]) => store.objects.create({
    object_type, nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 1,
    extras: { tags: ['old-tag'] }, links: { parents, relations: [] },
  }, NOW)
  const section = await write('section', 'Old section', [PUBLICATION_ID])
  const doc = await write('document', 'Taken title', [section])
  const image = await write('image', 'Old image', [section])
  await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: image, priority: 7, params: null }])
  await store.applyFixtures({ categories: [{ name: 'old-cat', label: 'Old' }], tags: [], objects: [] }, NOW)
  return { section, doc, image }
}

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
    const stores = [openSqliteStore(files[0] as string, { publicationNickname: 'publication', now: () => NOW }), rowByRowStore(files[1] as string)]
    const olds = await Promise.all(stores.map(existing))
    const outcome = planFixtures(JSON.stringify(trickyFile(olds[0] as { section: number, doc: number, image: number })), [], PUBLICATION_ID)
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
    const [bulk, reference] = stores as [ObjectsStore, ObjectsStore]
    const refs = await bulk.applyFixtures(outcome.plan, NOW)
    const expected = await reference.applyFixtures(outcome.plan, NOW)
    await Promise.all(stores.map((s) => s.close()))
    expect(refs).toEqual(expected)
    const [got, want] = files.map(dump) as [Record<string, unknown[]>, Record<string, unknown[]>]
    expect(want.changes?.length).toBeGreaterThan(30)
    for (const table of TABLES) expect({ table, rows: got[table] }).toEqual({ table, rows: want[table] })
  })
})

describe('sqlite fixtures plan, all or nothing', () => {
  it('when the last of thousands of objects fails to write, then no object, tree row, relation, tag or change event is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-fixtures-'))
    const file = join(dir, 'objects.sqlite')
    try {
      const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
      const objects: unknown[] = [{ ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] }]
      for (let i = 0; i < 5_000; i++) {
        objects.push({ ref: `d${i}`, object_type: 'document', title: `D ${i}`, parents: ['s'], tags: [`t${i % 7}`], relations: i > 0 ? { seealso: [{ related: `d${i - 1}` }] } : {} })
      }
      // checked free when planned, taken by the time it is written (a concurrent write got there first)
      objects.push({ ref: 'late', object_type: 'document', title: 'Late', nickname: 'publication', parents: ['s'] })
      const outcome = planFixtures(JSON.stringify({ tags: [{ name: 'file-tag' }], objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
      let told = 0
      store.onChange(() => { told++ })
      await expect(store.applyFixtures(outcome.plan, NOW)).rejects.toMatchObject({ name: 'UniqueConflict' })
      expect(store.committedSeq()).toBe(0)
      expect(told).toBe(0)
      await store.close()
      const rows = dump(file)
      expect(rows.objects).toHaveLength(1)
      expect(rows.closure).toHaveLength(1)
      for (const table of ['tree', 'relations', 'tags', 'object_tags', 'changes']) expect({ table, rows: rows[table] }).toEqual({ table, rows: [] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('sqlite fixtures plan, objects it names', () => {
  it('when an object the plan names is deleted before the plan is written, then nothing is written, and cascades run again afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-fixtures-'))
    const file = join(dir, 'objects.sqlite')
    try {
      const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
      const { section, image } = await existing(store)
      const plan = (objects: unknown[]) => {
        const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
        if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
        return outcome.plan
      }
      const naming = plan([
        { ref: 'a', object_type: 'document', title: 'A', parents: [section], custom_properties: { k: 'v' } },
        { object_type: 'document', title: 'B', parents: ['a'], relations: { attach: [{ related: image }] } },
      ])
      // planned and checked while the image was there, written after a concurrent delete
      expect(await store.objects.remove(image)).toBe('removed')
      const before = dump(file)
      await expect(store.applyFixtures(naming, NOW)).rejects.toMatchObject({ name: 'TargetGone' })
      expect(dump(file)).toEqual(before)

      const refs = await store.applyFixtures(plan([{ ref: 'a', object_type: 'document', title: 'A', parents: [section], custom_properties: { k: 'v' } }]), NOW)
      expect(dump(file).custom_properties).toHaveLength(1)
      // the import turned SQLite's foreign keys off for its transaction only: a delete cascades again
      expect(await store.objects.remove(refs.a as number)).toBe('removed')
      expect(dump(file).custom_properties).toEqual([])
      await store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
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
