#!/usr/bin/env node
// `node loadtest/autocannon/feed-costs.mjs`: what the objects service's change feed costs its thread after an
// import of FEED_OBJECTS (100,000) objects shaped as the scale bench loads them (about four events each), with
// FEED_SUBSCRIBERS (1,2,4) streams following it (each gateway replica holds one), in-process: reading the
// events back and encoding every message for each stream as WatchChanges writes it, once per stream (as
// before) and once for every stream (feed-encoding.ts). Alternates the two FEED_ROUNDS (2) times.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadContentProtos } from '@content/protos'
import { firstScaleFile } from './fixtures.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const dist = (path) => import(join(root, 'services/objects/dist', path))
const { openSqliteStore } = await dist('store/sqlite/sqlite.store.js')
const { ChangeFeed } = await dist('core/change-feed.js')
const { importFixtures } = await dist('core/fixtures.import.js')
const { feedEncoding } = await dist('rpc/feed-encoding.js')

const size = Number(process.env.FEED_OBJECTS ?? 100_000)
const subscribers = (process.env.FEED_SUBSCRIBERS ?? '1,2,4').split(',').map(Number)
const rounds = Number(process.env.FEED_ROUNDS ?? 2)
const definition = loadContentProtos().content.v1.ObjectService.service
const serialize = definition.WatchChanges.responseSerialize

const fixtures = firstScaleFile(size)

/** Imports the file into a fresh store, then times the feed telling its events to `streams` listeners. */
async function feedAfterImport (streams, once) {
  const dir = mkdtempSync(join(tmpdir(), 'feed-costs-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  // started before the import and pulled after it, as a commit would pull it, so the import is not timed
  const feed = new ChangeFeed({ storeId: store.storeId, changes: store.changes, now: Date.now, nextBoundary: async () => null })
  await feed.start()
  const { encode } = feedEncoding(definition)
  let bytes = 0
  let events = 0
  for (let s = 0; s < streams; s++) {
    feed.subscribe((message) => {
      bytes += (once ? encode(message) : serialize(message)).length
      if (s === 0) events += message.events.length
    })
  }
  await importFixtures(store, { fixtures_json: fixtures, known_groups: [], dry_run: false }, Date.now())
  const { last } = await store.changes.bounds()
  const started = performance.now()
  const loop = performance.eventLoopUtilization()
  feed.pull()
  while (feed.position < last) await new Promise((resolve) => setTimeout(resolve, 1))
  const busy = performance.eventLoopUtilization(loop).active
  const ms = performance.now() - started
  feed.close()
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  return { ms, busy, events, mb: bytes / 1e6 }
}

console.log(`one file of ${size} objects; the feed telling its events after the commit, per number of streams`)
for (let round = 1; round <= rounds; round++) {
  for (const streams of subscribers) {
    for (const once of [false, true]) {
      const r = await feedAfterImport(streams, once)
      console.log(`round ${round}, ${streams} stream${streams === 1 ? '' : 's'}, ${once ? 'encoded once  ' : 'each encodes  '}: ${r.events} events, ` +
        `${r.ms.toFixed(0)} ms, the thread busy ${r.busy.toFixed(0)} ms, ${r.mb.toFixed(1)} MB written`)
    }
  }
}
