import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { ListFilter } from '../../src/core/types.js'
import type { ListQuery, ObjectsStore } from '../../src/core/ports.js'
import * as relations from '../../src/store/sqlite/relations.sqlite.js'
import { Statements, filterParams, filtered } from '../../src/store/sqlite/rows.sqlite.js'
import { SCHEMA, registerFunctions } from '../../src/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { TEXT_INDEX_DELAY_MS, indexPendingText } from '../../src/store/sqlite/text-indexer.sqlite.js'
import { TEXT_INDEX_HASH_BYTES, ensureTextIndex, ftsPhrase } from '../../src/store/sqlite/text-index.sqlite.js'
import * as tree from '../../src/store/sqlite/tree.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'

const tempFile = tempStoreFiles('objects-fts-')

const search = (query: string): ListFilter => ({ object_types: [], query })
const q = (query: string): ListQuery => ({
  visibility: { statuses: ['on'], at: null, groups: [] }, filter: search(query), offset: 0, limit: 100,
})
const create = (store: ObjectsStore, title: string, more: { description?: string, body?: string, parent?: number } = {}) =>
  store.objects.create({
    object_type: 'document', nickname: null, status: 'on',
    columns: { ...DEFAULT_COLUMNS, title, description: more.description ?? null, body: more.body ?? null },
    read_groups: [], write_groups: [], user_id: 1, extras: {},
    links: { parents: [more.parent ?? 1], relations: [] },
  }, 1)
const found = async (store: ObjectsStore, query: string) => (await store.tree.descendants(1, 'id', q(query))).ids

/** The rule the index must not change (decisions §3): JS lower-case containment in any of the three fields. */
const scan = (rows: { id: number, title: string | null, description: string | null, body: string | null }[], query: string) => {
  const needle = query.toLowerCase()
  return rows.filter((r) => [r.title, r.description, r.body].some((t) => t?.toLowerCase().includes(needle) === true)).map((r) => r.id)
}

// Letters where JS lower-casing and the tokenizer's folding part ways, FTS5 query syntax, and plain text.
const TRICKY = ['İ', 'I', 'i', 'ı', '\u0307', 'ß', 'ẞ', 'Σ', 'σ', 'ς', 'Ꭰ', 'ꭰ', 'Ა', 'ა', 'é', 'É', 'e\u0301', 'Ǆ', 'ǅ', 'ǆ', 'K', 'k',
  '😀', '"', "'", '*', '(', ')', ':', '^', '-', '+', ' NEAR ', ' AND ', ' OR ', ' NOT ', 'NEAR(', '\u0000', ' ']
const unit = fc.oneof(fc.constantFrom(...TRICKY), fc.constantFrom(...'abcABC'), fc.string({ unit: 'grapheme', maxLength: 1 }))
const text = fc.array(unit, { maxLength: 12 }).map((parts) => parts.join(''))
/** Queries: mostly pieces of the stored texts with their case changed, so that many of them match. */
const queryOf = (texts: string[]) => fc.oneof(
  text,
  fc.tuple(fc.constantFrom(...texts, 'x'), fc.nat(), fc.nat(), fc.constantFrom('upper', 'lower', 'same'))
    .map(([t, a, b, how]) => {
      // cut after changing the case, so a cut may fall inside what one letter became ('İ' → 'i' + U+0307)
      const cased = Array.from(how === 'upper' ? t.toUpperCase() : how === 'lower' ? t.toLowerCase() : t)
      const from = a % (cased.length + 1)
      return cased.slice(from, from + 3 + (b % 5)).join('')
    }),
)

describe('filter[query] on the trigram index', () => {
  it('when texts and queries are random Unicode, then the indexed search answers exactly the ids of the scan', () => {
    const db = new Database(':memory:')
    registerFunctions(db)
    db.exec(SCHEMA)
    ensureTextIndex(db)
    const st = new Statements(db)
    let indexed = 0
    fc.assert(fc.property(
      fc.array(fc.record({ title: fc.option(text), description: fc.option(text), body: fc.option(text) }), { minLength: 1, maxLength: 8 })
        .chain((docs) => fc.tuple(fc.constant(docs), fc.array(queryOf(docs.flatMap((d) => [d.title ?? '', d.body ?? ''])), { minLength: 1, maxLength: 6 }), fc.nat(8))),
      ([docs, queries, indexedNow]) => {
        // the rows of the run before, some indexed and some pending: the delete trigger takes both out
        db.exec('DELETE FROM objects')
        const insert = db.prepare(`INSERT INTO objects (object_type, nickname, status, title, description, body, created, modified)
          VALUES ('document', @nickname, 'on', @title, @description, @body, 0, 0)`)
        const rows = docs.map((d, i) => ({ ...d, id: Number(insert.run({ ...d, nickname: `n${i}` }).lastInsertRowid) }))
        // the oldest texts indexed, the others still pending: searches must find both
        db.transaction(() => indexPendingText(st, indexedNow))()
        for (const query of queries.filter((x) => x !== '')) {
          const filter = search(query)
          if (filterParams(filter).fts !== null) indexed++
          const ids = st.all<{ id: number }>(`SELECT o.id FROM objects o WHERE ${filtered(filter)} ORDER BY o.id`, filterParams(filter)).map((r) => r.id)
          expect(ids, JSON.stringify({ query, docs })).toEqual(scan(rows, query))
        }
      },
    ), {
      numRuns: 400,
      // where the tokenizer and toLowerCase part ways: 'İ' → 'i' + U+0307, final sigma, Cherokee
      examples: [[[[{ title: 'Taxİ stand', description: 'ΟΔΟΣ', body: 'ᎠᎡᎢ' }], ['TAXI', 'axi', 'axi\u0307', 'δος', 'ΔΟΣ', 'ꭰꭱꭲ', 'ᎠᎡᎢ'], 1]]],
    })
    // the property means something only if the index served many of the searches
    expect(indexed).toBeGreaterThan(200)
    // what the triggers and the batches did leaves the index equal to its content
    db.transaction(() => indexPendingText(st, 1_000))()
    expect(() => db.exec("INSERT INTO objects_fts (objects_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow()
    db.close()
  })

  it('when a query holds FTS5 syntax, then it is one quoted phrase; short or unsafe queries scan', () => {
    expect(ftsPhrase('a"b')).toBe('"a""b"')
    expect(ftsPhrase('near(x) and y*')).toBe('"near(x) and y*"')
    expect(ftsPhrase('ab')).toBeNull()
    expect(ftsPhrase('😀😀')).toBeNull()
    expect(ftsPhrase('😀😀😀')).toBe('"😀😀😀"')
    // 'İ' lower-cases to i + U+0307 but folds to itself: a trailing 'i' is left out, U+0307 scans
    expect(ftsPhrase('taxi')).toBe('"tax"')
    expect(ftsPhrase('xi\u0307y')).toBeNull()
    expect(ftsPhrase('ꭰꭱꭲ')).toBeNull()
    expect(ftsPhrase('a\u0000bc')).toBeNull()
    expect(ftsPhrase('οδος')).toBe('"οδος"')
  })

  it('when /objects and a children list are searched, then the plan reads objects_fts and never scans objects', async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const section = await create(store, 'Section')
    await create(store, 'Alpha beta', { parent: section })
    await store.close()
    const db = new Database(file)
    registerFunctions(db)
    const seen: [string, object][] = []
    const st = new class extends Statements {
      override all<T> (sql: string, params: object = {}): T[] { seen.push([sql, params]); return super.all<T>(sql, params) }
      override one<T> (sql: string, params: object = {}): T | undefined { seen.push([sql, params]); return super.one<T>(sql, params) }
    }(db)
    expect(tree.listDescendants(st, 1, 'id', q('alpha')).ids).toHaveLength(1)
    expect(tree.listChildren(st, section, 'all', q('BETA')).ids).toHaveLength(1)
    expect(relations.listRelated(st, section, 'attach', q('alpha')).total).toBe(0)
    expect(seen).toHaveLength(6)
    for (const [sql, params] of seen) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params).map((r) => (r as { detail: string }).detail)
      expect(plan.some((d) => /SCAN objects_fts VIRTUAL TABLE INDEX \d+:M/.test(d)), plan.join('\n')).toBe(true)
      expect(plan.filter((d) => /^SCAN (o|objects)\b/.test(d)), plan.join('\n')).toEqual([])
    }
    db.close()
  })

  it('when a store file from before the index is opened, then it is indexed once and searches find its objects', async () => {
    const file = tempFile()
    const first = openSqliteStore(file, { publicationNickname: 'publication' })
    const id = await create(first, 'Ancient scroll', { body: 'Written in İstanbul' })
    await first.close()
    const db = new Database(file)
    db.exec(`DROP TRIGGER objects_text_insert; DROP TRIGGER objects_text_delete; DROP TRIGGER objects_text_update;
      DROP TABLE objects_fts; DROP TABLE text_pending; PRAGMA user_version = 0`) // as a release before schema versions left it
    db.close()
    const again = openSqliteStore(file, { publicationNickname: 'publication' })
    expect(await found(again, 'SCROLL')).toEqual([id])
    expect(await found(again, 'i̇stan')).toEqual([id])
    expect(await found(again, 'writ')).toEqual([id])
    const later = await create(again, 'Another scroll')
    expect(await found(again, 'scroll')).toEqual([id, later])
    await again.close()
  })

  it('when a store is opened, then its index writes a segment per 8 MiB of terms, also a store from before that setting', async () => {
    const file = tempFile()
    const hashsize = () => {
      const db = new Database(file, { readonly: true })
      try {
        return db.prepare("SELECT v FROM objects_fts_config WHERE k = 'hashsize'").pluck().get()
      } finally {
        db.close()
      }
    }
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const id = await create(store, 'Measured scroll')
    await store.close()
    expect(hashsize()).toBe(TEXT_INDEX_HASH_BYTES)
    const db = new Database(file)
    // a store from before: FTS5's default, 1 MiB
    db.exec("INSERT INTO objects_fts (objects_fts, rank) VALUES ('hashsize', 1048576); PRAGMA user_version = 0")
    db.close()
    expect(hashsize()).toBe(1_048_576)
    const again = openSqliteStore(file, { publicationNickname: 'publication' })
    expect(hashsize()).toBe(TEXT_INDEX_HASH_BYTES)
    expect(await found(again, 'measured')).toEqual([id])
    await again.close()
  })

  it('when titles and bodies change or objects are deleted, then searches follow at once', async () => {
    const store = openSqliteStore(tempFile(), { publicationNickname: 'publication' })
    const a = await create(store, 'Red fox', { body: 'quick brown' })
    const b = await create(store, 'Blue whale', { description: 'deep sea' })
    expect(await found(store, 'fox')).toEqual([a])
    expect(await found(store, 'DEEP')).toEqual([b])
    await store.objects.update(a, { columns: { title: 'Grey wolf' }, user_id: 1, extras: {} }, 2)
    expect(await found(store, 'fox')).toEqual([])
    expect(await found(store, 'wolf')).toEqual([a])
    expect(await found(store, 'brown')).toEqual([a])
    await store.objects.update(a, { columns: { body: null }, user_id: 1, extras: {} }, 3)
    expect(await found(store, 'brown')).toEqual([])
    await store.objects.update(b, { columns: { description: 'shallow lake' }, user_id: 1, extras: {} }, 4)
    expect(await found(store, 'deep')).toEqual([])
    expect(await found(store, 'lake')).toEqual([b])
    expect(await store.objects.remove(b)).toBe('removed')
    expect(await found(store, 'whale')).toEqual([])
    expect(await found(store, 'lake')).toEqual([])
    expect(await found(store, 'wolf')).toEqual([a])
    await store.close()
  })
  it('when fixtures are imported, then searches find their objects at once, creates after them too, and a refused import leaves nothing to find', async () => {
    const store = openSqliteStore(tempFile(), { publicationNickname: 'publication' })
    const plan = (objects: object[]) => {
      const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('; '))
      return outcome.plan
    }
    const before = await create(store, 'Harbour seal')
    const refs = await store.applyFixtures(plan([
      { ref: 'a', object_type: 'document', title: 'Arctic tern', parents: ['@publication'] },
      { ref: 'b', object_type: 'document', title: 'Puffin', body: 'nests on arctic cliffs', parents: ['@publication'] },
    ]), 2)
    expect(await found(store, 'arctic')).toEqual([refs.a, refs.b])
    expect(await found(store, 'seal')).toEqual([before])
    const after = await create(store, 'Arctic fox')
    expect(await found(store, 'arctic')).toEqual([refs.a, refs.b, after])
    // a nickname taken: the import is refused whole, its first object with it
    await expect(store.applyFixtures(plan([
      { object_type: 'document', title: 'Arctic hare', parents: ['@publication'] },
      { object_type: 'document', title: 'Taken', nickname: 'arctic-tern', parents: ['@publication'] },
    ]), 3)).rejects.toThrow()
    const last = await create(store, 'Arctic char')
    expect(await found(store, 'arctic')).toEqual([refs.a, refs.b, after, last])
    await store.close()
  })

  it('when text waits to be indexed, then searches find it at once, the indexer takes it within its delay, and the index stays equal to its content', async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication' })
    const side = new Database(file)
    const pending = () => side.prepare('SELECT id FROM text_pending ORDER BY id').pluck().all()
    const settle = async () => { for (let i = 0; i < 50 && pending().length > 0; i++) await new Promise((r) => setTimeout(r, TEXT_INDEX_DELAY_MS)) }
    const integrity = () => side.exec("INSERT INTO objects_fts (objects_fts, rank) VALUES ('integrity-check', 1)")
    // the publication's own text, from the store's start
    await settle()
    const a = await create(store, 'Snow leopard', { body: 'high passes' })
    expect(pending()).toEqual([a])
    expect(await found(store, 'leopard')).toEqual([a])
    await settle()
    expect(pending()).toEqual([])
    expect(side.prepare("SELECT rowid FROM objects_fts WHERE objects_fts MATCH '\"leopard\"'").pluck().all()).toEqual([a])
    integrity()
    // an indexed text changed: its old words leave the index now, its new ones wait
    await store.objects.update(a, { columns: { title: 'Mountain goat' }, user_id: 1, extras: {} }, 2)
    expect(pending()).toEqual([a])
    expect(await found(store, 'leopard')).toEqual([])
    expect(await found(store, 'goat')).toEqual([a])
    // a pending text changed again, and one deleted while pending
    await store.objects.update(a, { columns: { body: 'steep cliffs' }, user_id: 1, extras: {} }, 3)
    const b = await create(store, 'Passing cloud')
    expect(await found(store, 'passes')).toEqual([])
    expect(await found(store, 'cliffs')).toEqual([a])
    expect(await store.objects.remove(b)).toBe('removed')
    expect(pending()).toEqual([a])
    expect(await found(store, 'cloud')).toEqual([])
    await settle()
    expect(pending()).toEqual([])
    expect(await found(store, 'cliffs')).toEqual([a])
    expect(await found(store, 'goat')).toEqual([a])
    integrity()
    // an indexed object deleted
    expect(await store.objects.remove(a)).toBe('removed')
    expect(await found(store, 'goat')).toEqual([])
    integrity()
    // what is pending when the store closes is indexed then; what a crash left, at the next start
    const c = await create(store, 'Closing time')
    await store.close()
    expect(pending()).toEqual([])
    side.exec(`INSERT INTO objects (object_type, nickname, status, title, created, modified) VALUES ('document', 'left-over', 'on', 'Left over', 0, 0)`)
    const left = side.prepare("SELECT id FROM objects WHERE nickname = 'left-over'").pluck().get()
    const again = openSqliteStore(file, { publicationNickname: 'publication' })
    expect(pending()).toEqual([left])
    await settle()
    expect(pending()).toEqual([])
    expect(await found(again, 'closing')).toEqual([c])
    expect(side.prepare("SELECT rowid FROM objects_fts WHERE objects_fts MATCH '\"left over\"'").pluck().all()).toEqual([left])
    integrity()
    await again.close()
    side.close()
  })

  it('when indexing new text fails, then the failure is reported, searches still find the text, and the next write indexes it', async () => {
    const file = tempFile()
    const failures: string[] = []
    const store = openSqliteStore(file, { publicationNickname: 'publication', onBackgroundError: (_err, what) => { failures.push(what) } })
    const side = new Database(file)
    const a = await create(store, 'Broken quill')
    // the indexer's next run finds no table of pending texts (the triggers follow the rename)
    side.exec('ALTER TABLE text_pending RENAME TO text_pending_away')
    await vi.waitFor(() => expect(failures).toEqual(['indexing new text failed; the next write tries again']), { timeout: 2_000 })
    side.exec('ALTER TABLE text_pending_away RENAME TO text_pending')
    expect(await found(store, 'quill')).toEqual([a])
    const b = await create(store, 'Second quill')
    await vi.waitFor(() => expect(side.prepare('SELECT COUNT(*) FROM text_pending').pluck().get()).toBe(0), { timeout: 2_000 })
    expect(side.prepare("SELECT rowid FROM objects_fts WHERE objects_fts MATCH '\"quill\"' ORDER BY rowid").pluck().all()).toEqual([a, b])
    await store.close()
    side.close()
  })

  it('when a store whose triggers indexed within each write is opened, then they are replaced and its index is kept', async () => {
    const file = tempFile()
    const first = openSqliteStore(file, { publicationNickname: 'publication' })
    const id = await create(first, 'Old harbour')
    await first.close()
    const db = new Database(file)
    // the triggers of such a store, which keep the index in step within each write
    db.exec(`DROP TRIGGER objects_text_insert; DROP TRIGGER objects_text_delete; DROP TRIGGER objects_text_update; DROP TABLE text_pending;
      CREATE TRIGGER objects_fts_insert AFTER INSERT ON objects BEGIN
        INSERT INTO objects_fts (rowid, title, description, body) VALUES (new.id, new.title, new.description, new.body);
      END;
      CREATE TRIGGER objects_fts_delete AFTER DELETE ON objects BEGIN
        INSERT INTO objects_fts (objects_fts, rowid, title, description, body) VALUES ('delete', old.id, old.title, old.description, old.body);
      END;
      CREATE TRIGGER objects_fts_update AFTER UPDATE OF title, description, body ON objects BEGIN
        INSERT INTO objects_fts (objects_fts, rowid, title, description, body) VALUES ('delete', old.id, old.title, old.description, old.body);
        INSERT INTO objects_fts (rowid, title, description, body) VALUES (new.id, new.title, new.description, new.body);
      END;
      INSERT INTO objects (object_type, nickname, status, title, created, modified) VALUES ('document', 'lighthouse', 'on', 'Harbour lighthouse', 0, 0);
      PRAGMA user_version = 0;`) // as a release before schema versions left it
    const lighthouse = db.prepare("SELECT id FROM objects WHERE nickname = 'lighthouse'").pluck().get()
    const again = openSqliteStore(file, { publicationNickname: 'publication' })
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'objects_%' ORDER BY name").pluck().all())
      .toEqual(['objects_text_delete', 'objects_text_insert', 'objects_text_update'])
    expect(db.prepare('SELECT COUNT(*) FROM text_pending').pluck().get()).toBe(0)
    const indexed = () => db.prepare("SELECT rowid FROM objects_fts WHERE objects_fts MATCH '\"harbour\"' ORDER BY rowid").pluck().all()
    expect(indexed()).toEqual([id, lighthouse])
    const later = await create(again, 'New harbour')
    expect(await found(again, 'harbour')).toEqual([id, later])
    await again.close()
    expect(indexed()).toEqual([id, lighthouse, later])
    db.exec("INSERT INTO objects_fts (objects_fts, rank) VALUES ('integrity-check', 1)")
    db.close()
  })
})
