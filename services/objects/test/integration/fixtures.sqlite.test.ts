import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { composeStore } from '../../src/core/composed-store.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { RowByRowImport } from '../../src/core/writes/fixtures.rows.js'
import { openSqliteAdapter, openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { tempStoreFiles } from '../support/temp-store.js'
import { NOW, TABLES, describeFixturesContract, existing, trickyFile } from './fixtures.contract.js'


/**
 * A store that imports a plan one row at a time, through the write steps every write uses (RowByRowImport,
 * in one write transaction): what the bulk path must equal.
 */
function rowByRowStore (file: string): ObjectsStore {
  const adapter = openSqliteAdapter(file, { publicationNickname: 'publication', now: () => NOW })
  return composeStore({ ...adapter, importInBulk: (work) => adapter.write((steps) => work(new RowByRowImport(steps))) }, { revisionsKeep: null })
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
    const before = bulk.committedSeq()
    const refs = await bulk.applyFixtures(outcome.plan, NOW)
    const expected = await reference.applyFixtures(outcome.plan, NOW)
    await Promise.all(stores.map((s) => s.close()))
    expect(refs).toEqual(expected)
    const [got, want] = files.map(dump) as [Record<string, unknown[]>, Record<string, unknown[]>]
    expect(want.changes?.length).toBeGreaterThan(30)
    // each event records who may read its object as writing it alone records it (decisions §17)
    const imported = (got.changes ?? []).map((row) => JSON.parse(row as string) as { seq: number, access: string | null }).filter((row) => row.seq > before)
    expect(imported.length).toBeGreaterThan(30)
    expect(imported.filter((row) => row.access === null)).toEqual([])
    for (const table of TABLES) expect({ table, rows: got[table] }).toEqual({ table, rows: want[table] })
  })
})

describe('sqlite fixtures import, its WAL', () => {
  const tempFile = tempStoreFiles('objects-fixtures-wal-')

  it('when an import commits, then its WAL is copied into the store by the checkpoint worker, with no further write', async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
    const size = () => statSync(file).size
    const before = size()
    // about 6 MB of text: many more pages than SQLite's automatic checkpoint waits for (1,000)
    const objects = Array.from({ length: 1_500 }, (_, i) => ({ object_type: 'document', title: `Page ${i}`, body: `${i} `.repeat(1_000), parents: ['@publication'] }))
    const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
    await store.applyFixtures(outcome.plan, NOW)
    // no commit on the store's connection follows: the worker (wal-checkpoint.sqlite.ts) copies it
    await vi.waitFor(() => expect(size()).toBeGreaterThan(before + 4_000_000), { timeout: 10_000, interval: 20 })
    await store.close()
  })
})
