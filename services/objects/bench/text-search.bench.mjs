// filter[query] on a 100,000-object SQLite store: the trigram index against the scan it replaced, side
// by side on the same file, and what the index triggers cost the bulk import.
// Run after `npm run build -w @content/objects`: node services/objects/bench/text-search.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { importFixtures } from '../dist/core/fixtures.import.js'
import { Statements } from '../dist/store/sqlite/rows.sqlite.js'
import { registerFunctions } from '../dist/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'
import { listChildren, listDescendants } from '../dist/store/sqlite/tree.sqlite.js'

const SECTIONS = 100
const PER_SECTION = 999
const WORDS = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919 % 99991).toString(36)}lex`)
const word = (n) => WORDS[(n * 2654435761) % WORDS.length]
// sections first (ids 2 to 101: the publication is 1), then their documents, which name them by id
const sections = Array.from({ length: SECTIONS }, (_, s) => ({ object_type: 'section', title: `Section ${s}`, parents: [1] }))
const documents = (rare) => Array.from({ length: SECTIONS * PER_SECTION }, (_, n) => ({
  object_type: 'document', title: `Document ${n}`, parents: [2 + Math.floor(n / PER_SECTION)],
  // a handful of objects hold the rare word the search looks for
  description: n % 5000 === 7 ? `${rare} here` : null,
  body: Array.from({ length: 60 }, (_, k) => word(n * 61 + k)).join(' '),
}))

async function build (file, withTriggers) {
  const store = openSqliteStore(file, { publicationNickname: 'publication' })
  if (!withTriggers) new Database(file).exec('DROP TRIGGER objects_text_insert; DROP TRIGGER objects_text_update; DROP TRIGGER objects_text_delete')
  const batches = [sections]
  const docs = documents('Zephyrine')
  for (let i = 0; i < docs.length; i += 10_000) batches.push(docs.slice(i, i + 10_000))
  const t = performance.now()
  for (const batch of batches) {
    await importFixtures(store, { fixtures_json: JSON.stringify({ objects: batch }), known_groups: [], dry_run: false }, Date.now())
  }
  const ms = performance.now() - t
  await store.close()
  return ms
}

const dir = mkdtempSync(join(tmpdir(), 'text-search-bench-'))
try {
  const plain = await build(join(dir, 'plain.sqlite'), false)
  const file = join(dir, 'objects.sqlite')
  const indexed = await build(file, true)
  console.log(`import of ${SECTIONS * (PER_SECTION + 1)} objects (11 fixture batches): ${(plain / 1000).toFixed(1)} s without the index triggers, ${(indexed / 1000).toFixed(1)} s with them`)

  const db = new Database(file, { readonly: true })
  registerFunctions(db)
  const indexedSt = new Statements(db)
  // the statements before the index: the same SQL without the candidate list from objects_fts
  const scanSt = new class extends Statements {
    get (sql) { return super.get(sql.replace('o.id IN (SELECT rowid FROM objects_fts WHERE objects_fts MATCH @fts) AND ', '')) }
  }(db)
  const query = (text) => ({ visibility: { statuses: ['on'], at: Date.now(), groups: [] }, filter: { object_types: [], query: text }, offset: 0, limit: 20 })
  const measure = (label, fn) => {
    const first = fn()
    for (let i = 0; i < 3; i++) fn()
    const times = []
    for (let i = 0; i < 15; i++) {
      const start = performance.now()
      fn()
      times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    console.log(`${label}: median ${times[7].toFixed(2)} ms, max ${times[14].toFixed(2)} ms (total ${first.total})`)
  }
  for (const [text, what] of [['zephyr', 'rare word'], ['document 4242', 'rare phrase'], ['lex', 'in every body']]) {
    measure(`GET /objects?filter[query]=${text} (${what}), scan`, () => listDescendants(scanSt, 1, 'id', query(text)))
    measure(`GET /objects?filter[query]=${text} (${what}), index`, () => listDescendants(indexedSt, 1, 'id', query(text)))
  }
  measure('children of a 999-child section, filter[query]=zephyr, scan', () => listChildren(scanSt, 2, 'all', query('zephyr')))
  measure('children of a 999-child section, filter[query]=zephyr, index', () => listChildren(indexedSt, 2, 'all', query('zephyr')))
  db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
