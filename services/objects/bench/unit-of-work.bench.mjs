// What composing writes of steps costs SQLite's synchronous path (core/unit-of-work.ts), in-process, in
// alternating rounds on one store file each:
//   steps     — N no-op steps, per step: a direct call, taken with `yield*` and run by runSteps (what core
//               does), and awaited one by one (what an async core would do on every store);
//   creates   — a create with one parent and one relation (the bench's create) composed of SQLiteSteps,
//               run by runSteps (synchronously) and by an awaiting runner, 100 creates per transaction.
// Run after `npm run build -w @content/objects`: node services/objects/bench/unit-of-work.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { DEFAULT_COLUMNS } from '../dist/core/object-input.js'
import { runSteps, txOf } from '../dist/core/unit-of-work.js'
import { createObject } from '../dist/core/writes/objects.writes.js'
import { Statements } from '../dist/store/sqlite/rows.sqlite.js'
import { registerFunctions } from '../dist/store/sqlite/schema.sqlite.js'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'
import { recordChange } from '../dist/store/sqlite/outbox.sqlite.js'
import { SqliteSteps } from '../dist/store/sqlite/write-steps.sqlite.js'

const ROUNDS = Number(process.env.ROUNDS ?? 4)
const STEPS = 2_000_000
const CREATES = Number(process.env.CREATES ?? 3_000)

/** Runs composed steps awaiting every step, as an `async` composition would. */
async function runAwaited (steps) {
  let next = steps.next()
  while (!next.done) next = steps.next(await next.value)
  return next.value
}

function stepCosts () {
  let n = 0
  const step = () => { n++; return n }
  const tx = txOf({ ...Object.fromEntries(['record'].map((k) => [k, step])) }, { revisionsKeep: null })
  function * many (count) { let last = 0; for (let i = 0; i < count; i++) last = yield * tx.record(i); return last }
  const ns = (started) => Number(process.hrtime.bigint() - started) / STEPS
  let t = process.hrtime.bigint()
  for (let i = 0; i < STEPS; i++) step()
  const direct = ns(t)
  t = process.hrtime.bigint()
  runSteps(many(STEPS))
  const taken = ns(t)
  return { direct, taken, awaited: async () => { const s = process.hrtime.bigint(); await runAwaited(many(STEPS)); return ns(s) } }
}

function openStore () {
  const dir = mkdtempSync(join(tmpdir(), 'objects-uow-bench-'))
  const file = join(dir, 'objects.sqlite')
  return { dir, file }
}

/** `runner`: 'now' (runSteps, synchronous) or 'awaited'. Answers µs per create. */
async function creates (runner) {
  const { dir, file } = openStore()
  // the schema, the publication, a section and a document to relate to
  const store = openSqliteStore(file, { publicationNickname: 'publication' })
  const section = await store.objects.create({ object_type: 'section', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'S' }, read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [1], relations: [] } }, Date.now())
  const target = await store.objects.create({ object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'T' }, read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [section], relations: [] } }, Date.now())
  await store.close()
  const db = new Database(file)
  registerFunctions(db)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  const st = new Statements(db)
  const steps = new SqliteSteps(st)
  steps.recording = (drafts) => { for (const d of drafts) recordChange(st, d, Date.now()) }
  const tx = txOf(steps, { revisionsKeep: null })
  const write = (i) => ({
    object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: `Document ${i}`, body: `<p>body ${i}</p>` },
    read_groups: [], write_groups: [], user_id: 1, extras: { tags: ['bench'] },
    links: { parents: [section], relations: [{ name: 'seealso', inverse: 'seealso', related_id: target, priority: null, params: null }] },
  })
  const started = process.hrtime.bigint()
  for (let i = 0; i < CREATES; i += 100) {
    db.exec('BEGIN IMMEDIATE')
    for (let j = i; j < i + 100; j++) {
      if (runner === 'now') runSteps(createObject(tx, write(j), Date.now()))
      else await runAwaited(createObject(tx, write(j), Date.now()))
    }
    db.exec('COMMIT')
  }
  const us = Number(process.hrtime.bigint() - started) / 1000 / CREATES
  db.close()
  rmSync(dir, { recursive: true, force: true })
  return us
}

const fmt = (x) => x.toFixed(1)
console.log('round   step ns: direct  taken  awaited   create µs: runSteps  awaited  (ratio)')
for (let r = 1; r <= ROUNDS; r++) {
  const s = stepCosts()
  const awaited = await s.awaited()
  const [now, later] = r % 2 === 1 ? [await creates('now'), await creates('awaited')] : [undefined, await creates('awaited')]
  const sync = now ?? await creates('now')
  console.log(`${String(r).padStart(5)}   ${fmt(s.direct).padStart(14)} ${fmt(s.taken).padStart(6)} ${fmt(awaited).padStart(8)}   ${fmt(sync).padStart(19)} ${fmt(later).padStart(8)}  (×${(later / sync).toFixed(3)})`)
}
