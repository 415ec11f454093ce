#!/usr/bin/env node
// What `include=poster,attach` adds to a page of 20 children (decisions §15: at most 2× the page), in
// the objects service's own CPU: the two lists alternate in rounds of 50, so a busy machine weighs on
// both alike. Uses the store `store-scale.mjs` loaded (run it first at the same size).
//
//   STORE_BENCH_DIR=/tmp/store-bench SIZE=10000 node services/objects/bench/include-cost.bench.mjs
//
// DIST (default: this checkout's services/objects/dist) compares another build.
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
const dist = process.env.DIST ?? fileURLToPath(new URL('../dist', import.meta.url))
const size = process.env.SIZE ?? '10000'
const dir = process.env.STORE_BENCH_DIR ?? join(tmpdir(), 'content-store-bench')
const { listTree } = await import(`${dist}/core/tree.reader.js`)
const { openSqliteStore } = await import(`${dist}/store/sqlite/sqlite.store.js`)
const file = join(dir, `include-${process.pid}.sqlite`)
copyFileSync(join(dir, `scale-${size}.sqlite`), file)
const store = openSqliteStore(file, { publicationNickname: 'publication' })
const reads = { store, visibility: { visibleStatuses: ['on'], windowFilter: true }, now: Date.now }
const anonymous = { user_id: 0, groups: [], may_write: false }
const q5 = () => listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 3, page_size: 20 } })
const q6 = () => listTree(reads, anonymous, { kind: 'CHILDREN', object_id: 'big', page: { page: 3, page_size: 20 }, query: { include: ['poster', 'attach'] } })
for (let i = 0; i < 300; i++) { await q5(); await q6() }
let t5 = 0; let t6 = 0
for (let round = 0; round < 40; round++) {
  let b = process.cpuUsage(); for (let i = 0; i < 50; i++) await q5(); let u = process.cpuUsage(b); t5 += u.user + u.system
  b = process.cpuUsage(); for (let i = 0; i < 50; i++) await q6(); u = process.cpuUsage(b); t6 += u.user + u.system
}
console.log(`${size} q5 ${(t5 / 2000 / 1000).toFixed(3)} q6 ${(t6 / 2000 / 1000).toFixed(3)} ratio ${(t6 / t5).toFixed(2)}`)
await store.close()
for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true })
