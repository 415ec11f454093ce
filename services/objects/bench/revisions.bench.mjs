// What revisions (decisions §16) cost an update: the store growth per 1,000 updates of a 2 KB document, and
// the objects service's CPU per update (the core's saveObject over the SQLite store, in-process: the gRPC
// framing, the same with or without revisions, is left out) with revisions (REVISIONS_KEEP unset) and
// without (REVISIONS_KEEP=0), in alternating rounds.
// Run after `npm run build -w @content/objects`: node services/objects/bench/revisions.bench.mjs
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'
import { saveObject } from '../dist/core/objects.writer.js'

const UPDATES = 1_000
const ROUNDS = 3
const editor = { user_id: 2, groups: ['editor'] }
const body = (i) => `<p>${String(i).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(80)}</p>`.slice(0, 2048)

async function run (keep) {
  const dir = mkdtempSync(join(tmpdir(), 'objects-revisions-bench-'))
  const file = join(dir, 'objects.sqlite')
  const store = openSqliteStore(file, { publicationNickname: 'publication', revisionsKeep: keep })
  const deps = { reads: { store, now: () => Date.now(), visibility: { visibleStatuses: ['on'], windowFilter: true } }, writerGroups: ['editor'], now: () => Date.now() }
  const save = (data) => saveObject(deps, editor, JSON.stringify({ data }), ['document'])
  const { object } = await save({ object_type: 'document', title: 'Bench', body: body(0), parents: [1] })
  for (let i = 1; i <= 100; i++) await save({ id: object.id, title: `Warm ${i}`, body: body(i) })
  const size = () => {
    const db = new Database(file)
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    return statSync(file).size
  }
  const before = size()
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 1; i <= UPDATES; i++) await save({ id: object.id, title: `Update ${i}`, body: body(1_000 + i) })
  const used = process.cpuUsage(cpu)
  const wall = performance.now() - start
  const grown = size() - before
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  return { cpuMs: (used.user + used.system) / 1_000 / UPDATES, wallMs: wall / UPDATES, grownKiB: grown / 1024 }
}

const fmt = (r) => `cpu ${r.cpuMs.toFixed(3)} ms/update, wall ${r.wallMs.toFixed(3)} ms/update, store +${r.grownKiB.toFixed(0)} KiB per ${UPDATES} updates`
for (let round = 1; round <= ROUNDS; round++) {
  const off = await run(0)
  const on = await run(null)
  console.log(`round ${round}: without revisions ${fmt(off)}`)
  console.log(`round ${round}: with revisions    ${fmt(on)}  (cpu ×${(on.cpuMs / off.cpuMs).toFixed(2)})`)
}
