// Two builds of the objects service side by side, in one process: the CPU a save (POST /objects: a create
// under a section with a relation, then an update of it) costs in its core (`saveObject`) over a SQLite
// store, 10 saves in flight as 10 connections would keep them (so a turn commits several), in alternating
// rounds. The gRPC framing and the gateway, the same for both builds, are left out.
// Run after `npm run build -w @content/objects`, with the `dist` of each build:
//   node services/objects/bench/saves.bench.mjs <dist-a> <dist-b>
// e.g. a checkout of the commit before, built, and this one: /tmp/before/services/objects/dist services/objects/dist
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const [distA, distB] = process.argv.slice(2).map((d) => resolve(d))
if (!distA || !distB) {
  console.error('usage: node services/objects/bench/saves.bench.mjs <dist-a> <dist-b>')
  process.exit(2)
}
const ROUNDS = Number(process.env.ROUNDS ?? 6)
const SAVES = Number(process.env.SAVES ?? 2_000)
const IN_FLIGHT = 10
const editor = { user_id: 2, groups: ['editor'] }

async function build (dist) {
  const [{ openSqliteStore }, { saveObject }] = await Promise.all([import(join(dist, 'store/sqlite/sqlite.store.js')), import(join(dist, 'core/objects.writer.js'))])
  return { openSqliteStore, saveObject }
}

/** µs of CPU per create and per update. */
async function round ({ openSqliteStore, saveObject }) {
  const dir = mkdtempSync(join(tmpdir(), 'objects-saves-bench-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  const deps = { reads: { store, now: () => Date.now(), visibility: { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['editor'] } }, writerGroups: ['editor'], now: () => Date.now() }
  const save = async (data) => (await saveObject(deps, editor, JSON.stringify({ data }), ['document', 'section'])).object.id
  const section = await save({ object_type: 'section', title: 'Bench', parents: [1] })
  const target = await save({ object_type: 'document', title: 'Target', parents: [section] })
  const inFlight = async (count, one) => {
    let next = 0
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (next < count) await one(next++) }))
  }
  const ids = []
  const cpu = async (work) => {
    const before = process.cpuUsage()
    await work()
    const used = process.cpuUsage(before)
    return (used.user + used.system) / SAVES
  }
  const create = await cpu(() => inFlight(SAVES, async (i) => {
    ids[i] = await save({ object_type: 'document', title: `Document ${i}`, body: `<p>The body of document ${i}.</p>`, tags: ['bench'], parents: [section], relations: { seealso: [{ related_id: target }] } })
  }))
  const update = await cpu(() => inFlight(SAVES, async (i) => { await save({ id: ids[i], title: `Document ${i}, again`, description: 'changed' }) }))
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  return { create, update }
}

const builds = [await build(distA), await build(distB)]
await round(builds[0])
await round(builds[1])
console.log('round   create µs CPU: a      b   (b/a)   update µs CPU: a      b   (b/a)')
const ratios = { create: [], update: [] }
for (let r = 1; r <= ROUNDS; r++) {
  const order = r % 2 === 1 ? [0, 1] : [1, 0]
  const got = []
  for (const i of order) got[i] = await round(builds[i])
  const [a, b] = got
  ratios.create.push(b.create / a.create)
  ratios.update.push(b.update / a.update)
  console.log(`${String(r).padStart(5)}   ${a.create.toFixed(0).padStart(15)} ${b.create.toFixed(0).padStart(6)}  ×${(b.create / a.create).toFixed(3)}   ${a.update.toFixed(0).padStart(15)} ${b.update.toFixed(0).padStart(6)}  ×${(b.update / a.update).toFixed(3)}`)
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
console.log(`median b/a: create ×${median(ratios.create).toFixed(3)}, update ×${median(ratios.update).toFixed(3)}`)
