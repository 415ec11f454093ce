// Scheduled publication (decisions §16) with two processes on one SQLite file: both run rounds back to
// back while 300 windows open and close 10 ms apart; prints each process's rounds, errors and events, then
// whether every boundary reached the outbox once and how long after its boundary each event was recorded.
// Run after `npm run build -w @content/objects`: node services/objects/bench/schedule-processes.bench.mjs
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_COLUMNS } from '../dist/core/object-input.js'
import { openSqliteStore } from '../dist/store/sqlite/sqlite.store.js'

const WINDOWS = 300
const APART_MS = 10
const open = (file) => openSqliteStore(file, { publicationNickname: 'publication' })

/** A child: rounds at Date.now() until `until`, a few ms apart; reports its counts to the parent. */
async function rounds (file, until) {
  const store = open(file)
  const seen = { rounds: 0, errors: 0, announced: 0 }
  while (Date.now() < until) {
    try {
      seen.announced += await store.schedule.announce(Date.now(), ['on'])
      seen.rounds++
    } catch {
      seen.errors++
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3))
  }
  await store.close()
  process.send?.(seen)
}

async function main () {
  const dir = mkdtempSync(join(tmpdir(), 'objects-schedule-bench-'))
  const file = join(dir, 'objects.sqlite')
  const store = open(file)
  await store.schedule.announce(Date.now(), ['on'])
  const t0 = Date.now() + 8_000 // past the creates and the children's start
  const opens = new Map()
  for (let i = 0; i < WINDOWS; i++) {
    const start = t0 + i * APART_MS
    const id = await store.objects.create({
      object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: `w${i}`, start_date: start, end_date: start + 4 },
      read_groups: [], write_groups: [], user_id: 1, extras: {},
    }, Date.now())
    opens.set(id, start)
  }
  await store.close()
  const until = t0 + WINDOWS * APART_MS + 500
  const child = () => new Promise((resolve) => fork(fileURLToPath(import.meta.url), [file, String(until)]).on('message', resolve))
  console.log(await Promise.all([child(), child()]))
  const again = open(file)
  const events = (await again.changes.after(0, 100_000)).filter((e) => e.type === 'object.published' || e.type === 'object.unpublished')
  await again.close()
  rmSync(dir, { recursive: true, force: true })
  const keys = events.map((e) => `${e.type} ${e.object_id}`)
  const late = events.filter((e) => e.type === 'object.published').map((e) => e.at - opens.get(e.object_id)).sort((a, b) => a - b)
  console.log({ events: events.length, expected: 2 * WINDOWS, repeated: keys.length - new Set(keys).size, lateP50Ms: late[late.length >> 1], lateMaxMs: late.at(-1) })
}

if (process.argv[2]) await rounds(process.argv[2], Number(process.argv[3]))
else await main()
