// What the gateway's CPU pays to fan one change event out to its live streams (decisions §17): a LiveHub
// with STREAMS streams (half the admin's, half anonymous; every one read as it fills), fed the events of
// 500 creates (object.created and child.added each, one message of the feed per create), three rounds
// after one of warm-up. Each stream is written to a loopback socket, as the gateway's are (without the
// HTTP chunk framing); the readers of those sockets, in this process too, are in the figure. FLUSH_MS: the
// gateway's LIVE_FLUSH_MS (0 here by default: a write per stream and message).
//   npx turbo run build --filter=@content/gateway && node services/gateway/bench/live-fanout.bench.mjs
import { once } from 'node:events'
import { createServer, connect } from 'node:net'
import { LiveHub } from '../dist/live/live-hub.js'
import { parseLiveParams } from '../dist/live/live-params.js'

const STREAMS = Number(process.env.STREAMS ?? 1000)
const CREATES = 500
const PUBLIC = { status: 'on', read_groups: [], write_groups: [], parents: [5], ancestors: [1, 5] }

const hub = new LiveHub(
  { rules: { visibleStatuses: ['on'], windowFilter: true, writerGroups: [] }, now: Date.now, pingMs: 60_000, maxBufferBytes: 1024 ** 3, retryMs: 1000, flushMs: Number(process.env.FLUSH_MS ?? 0) },
  { maxStreams: STREAMS, maxPerCaller: STREAMS, retryAfterSeconds: 5, recentEvents: 10_000 },
  () => Promise.reject(new Error('no resume in this bench')))
hub.observe({ store_id: 's', reset: true, clock: false, events: [], seq: 0 })
const accepted = []
const server = createServer((socket) => accepted.push(socket)).listen(0, '127.0.0.1')
await once(server, 'listening')
for (let i = 0; i < STREAMS; i++) connect(server.address().port, '127.0.0.1').resume()
while (accepted.length < STREAMS) await new Promise((resolve) => setTimeout(resolve, 10))
for (let i = 0; i < STREAMS; i++) {
  const admin = i % 2 === 0
  const viewer = { userId: admin ? 1 : 0, groups: admin ? ['administrator'] : [], mayWrite: admin, drafts: false }
  hub.open({ viewer, key: admin ? 'user:1' : 'address:1', session: '', userId: viewer.userId }, parseLiveParams(new URLSearchParams()), null).out.pipe(accepted[i])
}

let seq = 0
const event = (type, objectId, over = {}) => ({ seq: ++seq, type, object_id: objectId, object_type: 'document', at: Date.now(), affects: [objectId], access: PUBLIC, ...over })
async function round () {
  for (let i = 0; i < CREATES; i++) {
    const id = 1_000 + seq
    hub.observe({ store_id: 's', reset: false, clock: false, seq, events: [event('object.created', id), event('child.added', 5, { object_type: 'section', parent_id: 5, parent_type: 'section', related_id: id })] })
  }
  // the sockets carry what was written, and their readers take it
  for (let k = 0; k < 5; k++) await new Promise((resolve) => setTimeout(resolve, 1))
}

await round()
for (let r = 1; r <= 3; r++) {
  const cpu = process.cpuUsage()
  await round()
  const used = process.cpuUsage(cpu)
  const ms = (used.user + used.system) / 1000
  console.log(`round ${r}: ${(ms / (2 * CREATES)).toFixed(3)} ms of CPU per event to ${STREAMS} streams (${((ms * 1000) / (2 * CREATES * STREAMS)).toFixed(2)} µs per stream and event)`)
}
// the sockets are not closed one by one: the process ends with them
process.exit(0)
