// Read latency and CPU of a 20-item children page on a 10,000-object store, in-process (the gRPC path is
// `npm run bench`'s).
// Run after `npm run build -w @content/objects`: node services/objects/bench/children-page.bench.mjs
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'
import { listTree } from '../dist/core/tree.reader.js'

const SECTIONS = 50
const PER_SECTION = 199
const dir = mkdtempSync(join(tmpdir(), 'objects-bench-'))
const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
const objects = []
for (let s = 0; s < SECTIONS; s++) {
  const ref = `s${s}`
  objects.push({ ref, object_type: 'section', title: `Section ${s}`, parents: ['@publication'] })
  for (let d = 0; d < PER_SECTION; d++) {
    objects.push({
      ref: `d${s}-${d}`, object_type: d % 5 === 0 ? 'event' : 'document', title: `Doc ${s}-${d}`, body: 'x'.repeat(400),
      parents: [ref], tags: ['t1'], custom_properties: { n: String(d) },
      ...(d > 0 ? { relations: { seealso: [{ related: `d${s}-${d - 1}` }] } } : {}),
    })
  }
}
const { importFixtures } = await import('../dist/core/fixtures.import.js')
const t = performance.now()
await importFixtures(store, { fixtures_json: JSON.stringify({ objects }), known_groups: [], dry_run: false }, Date.now())
console.log(`imported ${objects.length} objects in ${Math.round(performance.now() - t)} ms`)

const reads = { store, now: () => Date.now(), visibility: { visibleStatuses: ['on'], windowFilter: true } }
const caller = { user_id: 0, groups: [] }
const measure = async (label, n, fn) => {
  for (let i = 0; i < 200; i++) await fn()
  const times = []
  const cpu = process.cpuUsage()
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  const used = process.cpuUsage(cpu)
  times.sort((a, b) => a - b)
  const pick = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(3)
  console.log(`${label}: p50 ${pick(0.5)} ms, p95 ${pick(0.95)} ms, p99 ${pick(0.99)} ms, CPU ${((used.user + used.system) / n).toFixed(1)} µs per read (n=${n})`)
}
const page = (object_id, kind, n) => ({ object_id, kind, page: { page: n, page_size: 20 } })
await measure('in-process ListTree CHILDREN 20/page', 2000, () => listTree(reads, caller, page('section-7', 'CHILDREN', 3)))
await measure('in-process ListTree DESCENDANTS 20/page of publication', 300, () => listTree(reads, caller, page('1', 'DESCENDANTS', 2)))
await measure('in-process ListObjects-equivalent CHILDREN of publication', 2000, () => listTree(reads, caller, page('1', 'CHILDREN', 1)))
await store.close()
rmSync(dir, { recursive: true, force: true })
