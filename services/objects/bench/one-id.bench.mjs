// What a read of one object costs its statements, the id compared at once (`= @id`, as the store reads one
// object now) against the same statements through a JSON list of one (`IN (SELECT value FROM json_each(@ids))`,
// as they read it before): the object's record, its details and its relation counts, on the bench's store of
// 10,000 objects, in-process, the two forms alternated. loadtest/README.md, "One id, no list".
// Run after `npm run build -w @content/objects`: node services/objects/bench/one-id.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { benchFixtures } from '../../../loadtest/autocannon/fixtures.mjs'
import { importFixtures } from '../dist/core/fixtures.import.js'
import { loadDetails } from '../dist/store/sqlite/details.sqlite.js'
import { listObjectsByIds } from '../dist/store/sqlite/objects.sqlite.js'
import { relationCounts } from '../dist/store/sqlite/relations.sqlite.js'
import { IDS_LIST, ONE_ID, Statements } from '../dist/store/sqlite/rows.sqlite.js'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const RUNS = Number(process.env.RUNS ?? 20_000)
const dir = mkdtempSync(join(tmpdir(), 'objects-one-id-'))
const file = join(dir, 'objects.sqlite')
const store = openSqliteStore(file, { publicationNickname: 'publication' })
await importFixtures(store, { fixtures_json: JSON.stringify(benchFixtures({ total: 10_000 })), known_groups: [], dry_run: false }, Date.now())
await store.close?.()

/** The same statements with the one id sent as a list of one. */
class ListOfOne extends Statements {
  rawAll (sql, params) { return super.rawAll(...asList(sql, params)) }
  all (sql, params) { return super.all(...asList(sql, params)) }
}
const asList = (sql, { id, ...rest }) => [sql.replaceAll(ONE_ID, IDS_LIST), { ...rest, ids: JSON.stringify([id]) }]

const db = new Database(file, { readonly: true })
const forms = { '= @id': new Statements(db), 'a list of one': new ListOfOne(db) }
const ids = db.prepare("SELECT id FROM objects WHERE object_type = 'document' ORDER BY id LIMIT 5000").pluck().all()
const vis = { statuses: ['on'], at: Date.now(), groups: [] }
const reads = {
  record: (st, id) => listObjectsByIds(st, [id]),
  details: (st, id) => loadDetails(st, [id]),
  'relation counts': (st, id) => relationCounts(st, [id], vis),
}
for (const [form, st] of Object.entries(forms)) {
  for (const read of Object.values(reads)) for (let i = 0; i < 2_000; i++) read(st, ids[i % ids.length])
  // both forms answer the same (a Map as its entries)
  const answers = (st) => JSON.stringify([reads.record(st, ids[7]), [...reads.details(st, ids[7])], [...reads['relation counts'](st, ids[10])].map(([k, v]) => [k, [...v]])])
  if (answers(st) !== answers(forms['= @id'])) throw new Error(`${form}: another answer`)
}
console.log(`µs per read of one document, ${RUNS} documents in turn, the two forms alternated`)
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, read] of Object.entries(reads)) {
    const figures = Object.entries(forms).map(([form, st]) => {
      const started = process.hrtime.bigint()
      for (let i = 0; i < RUNS; i++) read(st, ids[i % ids.length])
      return `${form} ${(Number(process.hrtime.bigint() - started) / RUNS / 1e3).toFixed(1)}`
    })
    console.log(`round ${round}  ${name.padEnd(16)} ${figures.join('   ')}`)
  }
}
db.close()
rmSync(dir, { recursive: true, force: true })
