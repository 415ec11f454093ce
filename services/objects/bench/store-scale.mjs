#!/usr/bin/env node
// The objects service's own cost at a store size, without the gateway, gRPC or other processes: loads
// `scaleObjects` (loadtest/autocannon/fixtures.mjs, the store of `BENCH_ONLY=scale`) into a SQLite store
// in this process, then prints the CPU per operation of the reads and writes of the scale bench.
//
//   node services/objects/bench/store-scale.mjs [objects = 10000]
//
// Env: STORE_BENCH_DIR (a directory; the loaded store is kept there and reused by later runs of the
// same size), STORE_BENCH_OPS (operations per figure, default 1000). Build first (`npm run build`).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchCategories, OTHER_RARE_WORD, RARE_WORD, scaleObjects } from '../../../loadtest/autocannon/fixtures.mjs'
import { importFixtures } from '../dist/core/fixtures.import.js'
import { decodeCursor, fingerprintOf } from '../dist/core/list-query.js'
import { getObject, listObjects, listRelated } from '../dist/core/objects.reader.js'
import { saveObject } from '../dist/core/objects.writer.js'
import { listTree } from '../dist/core/tree.reader.js'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'
import { backgroundTextMerge } from '../dist/store/sqlite/text-merge.sqlite.js'

const total = Number(process.argv[2] ?? 10_000)
const ops = Number(process.env.STORE_BENCH_OPS ?? 1_000)
const dir = process.env.STORE_BENCH_DIR ?? join(tmpdir(), 'content-store-bench')
const loaded = join(dir, `scale-${total}.sqlite`)
const refsFile = `${loaded}.refs.json`
mkdirSync(dir, { recursive: true })

/** Loads the store once per size, as the bench does: files of 100,000 objects, refs of earlier files as ids. */
async function load () {
  const store = openSqliteStore(loaded, { publicationNickname: 'publication' })
  const ids = {}
  let batch = []
  const flush = async () => {
    const fixtures = { categories: Object.keys(ids).length === 0 ? benchCategories() : [], objects: batch }
    Object.assign(ids, await importFixtures(store, { fixtures_json: JSON.stringify(fixtures), known_groups: [], dry_run: false }, Date.now()))
    batch = []
  }
  const started = Date.now()
  for (const o of scaleObjects({ total })) {
    o.parents = o.parents.map((p) => ids[p] ?? p)
    for (const items of Object.values(o.relations ?? {})) for (const item of items) item.related = ids[item.related] ?? item.related
    batch.push(o)
    if (batch.length === 100_000) await flush()
  }
  if (batch.length > 0) await flush()
  await store.close()
  // the text index as the service leaves it once its background merge is done
  const errors = []
  const merge = backgroundTextMerge(loaded, (err) => errors.push(err), 0)
  merge.start()
  // the merge's worker never keeps a process alive: this does, until it is done
  const alive = setInterval(() => {}, 1_000)
  await merge.settled()
  clearInterval(alive)
  if (errors.length > 0) throw errors[0]
  writeFileSync(refsFile, JSON.stringify(ids))
  console.log(`loaded ${total} objects in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

if (!existsSync(refsFile)) await load()
const refs = JSON.parse(readFileSync(refsFile, 'utf8'))
// every run writes into a copy, so that runs of the same size start from the same store
const file = join(dir, `run-${process.pid}.sqlite`)
copyFileSync(loaded, file)
const store = openSqliteStore(file, { publicationNickname: 'publication' })
try {
  const reads = { store, visibility: { visibleStatuses: ['on'], windowFilter: true }, now: Date.now }
  const writes = { reads, writerGroups: ['administrator'], now: Date.now }
  const anonymous = { user_id: 0, groups: [], may_write: false }
  const admin = { user_id: 1, groups: ['administrator'], may_write: true }
  const bigChildren = (await listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 1, page_size: 20 } })).paging
  let created = 0
  const page20 = { page: 1, page_size: 20 }
  const cond = (field, op, values) => ({ field, op, values })
  const tagged = { conditions: [cond('tags', 'eq', ['tag-7'])], sort: [{ field: 'publication_date', descending: true }] }
  // the cursor of page 10,000 of 20 (position 200,000), walked 100 at a time
  let deep = 'start'
  for (let i = 0; i < 2_000 && deep !== null; i++) {
    deep = (await listObjects(reads, anonymous, { page: 1, page_size: 100 }, {}, { cursor: deep, count_none: true })).paging.next_cursor || null
  }
  const everything = { kind: 'descendants', node: 1, order: 'id' }
  const walk = (after) => ({ visibility: { statuses: ['on'], at: Date.now(), groups: [] }, filter: { object_types: [], query: '' }, clauses: [], sort: [], after, offset: 0, limit: 21, count: false })
  const deepAt = deep === null ? null : decodeCursor(store.storeId, fingerprintOf(everything, { object_types: [], query: '' }, { conditions: [], sort: [] }), deep)
  const runs = {
    '(s1) single': () => getObject(reads, anonymous, { object_id: String(refs.d1234) }),
    '(s2) children, first page': () => listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 1, page_size: 20 } }),
    [`(s3) children, last page (${bigChildren.total_pages})`]: () =>
      listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: bigChildren.total_pages, page_size: 20 } }),
    '(s4) descendants': () => listTree(reads, anonymous, { kind: 'DESCENDANTS', object_id: 'section-0', page: { page: 1, page_size: 20 } }),
    '(s5) relations list': () => listRelated(reads, anonymous, { object_id: String(refs.d1235), name: 'attach' }),
    [`(s6) search "${RARE_WORD}"`]: () => listObjects(reads, anonymous, { page: 1, page_size: 20 }, { query: RARE_WORD }),
    // the query grammar (decisions §15), as the scale bench's (q1)–(q8)
    '(q1) tag, sort -publication_date': () => listObjects(reads, anonymous, page20, {}, tagged),
    '(q2) the same, count=none': () => listObjects(reads, anonymous, page20, {}, { ...tagged, count_none: true }),
    '(q3) date range + custom property': () => listObjects(reads, anonymous, page20, {}, {
      conditions: [cond('publication_date', 'between', [String(Date.parse('2020-01-02T00:00:00Z')), String(Date.parse('2020-01-03T12:00:00Z'))]), cond('custom_properties.n', 'starts_with', ['15'])],
    }),
    '(q4) OR of two titles\' contains': () => listObjects(reads, anonymous, page20, {}, {
      conditions: [{ ...cond('title', 'contains', [RARE_WORD]), group: 0 }, { ...cond('title', 'contains', [OTHER_RARE_WORD]), group: 1 }],
    }),
    '(q5) children page 3': () => listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 3, page_size: 20 } }),
    '(q6) the same, include=poster,attach': () => listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 3, page_size: 20 }, query: { include: ['poster', 'attach'] } }),
    '(q7) all objects by cursor, page 1': () => listObjects(reads, anonymous, page20, {}, { cursor: 'start', count_none: true }),
    ...(deep === null ? {} : { '(q8) the same, page 10,000': () => listObjects(reads, anonymous, page20, {}, { cursor: deep, count_none: true }) }),
    // the walk's own statement, without the views: page 1 holds sections, page 10,000 documents
    '(q7s) its statement, page 1': () => store.lists.select(everything, walk(null)),
    ...(deep === null ? {} : { '(q8s) its statement, page 10,000': () => store.lists.select(everything, walk(deepAt)) }),
    // as the scale bench's creates: a title of its own, a description and a body like the documents'
    '(s7) create': () => {
      const title = `Created by the bench ${Date.now()} ${++created}`
      const data = { object_type: 'document', title, description: `Description of ${title}`, body: `<p>Body of ${title}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`, parents: [refs.u3] }
      return saveObject(writes, admin, JSON.stringify({ data }), ['document'])
    },
  }
  console.log(`${total} objects, ${ops} operations per figure, CPU ms per operation:`)
  for (const [name, run] of Object.entries(runs)) {
    for (let i = 0; i < ops / 10; i++) await run() // warm-up
    const before = process.cpuUsage()
    for (let i = 0; i < ops; i++) await run()
    const used = process.cpuUsage(before)
    console.log(`${name.padEnd(36)} ${((used.user + used.system) / ops / 1000).toFixed(3)}`)
  }
} finally {
  await store.close()
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
}
