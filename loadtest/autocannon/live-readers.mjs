// The streams of the live-streams run (live-streams.mjs), in a thread of their own: reading a thousand
// streams' events takes as much work as the reads beside them, and on one event loop each would delay the
// other's clock. Times are the wall clock's (ms, with performance.now()'s fraction), as the events' are.
import { parentPort, workerData } from 'node:worker_threads'
import { rawGet } from './raw-stream.mjs'
import { createdReader } from './sse-reader.mjs'

const { base, token, count } = workerData
const wallNow = () => performance.timeOrigin + performance.now()

/** object id → the commit time its event carries and each stream's arrival of it (NaN: not arrived) */
const created = new Map()
const record = (id) => {
  if (!created.has(id)) created.set(id, { committedAt: Number.NaN, arrivals: new Float64Array(count).fill(Number.NaN) })
  return created.get(id)
}

/**
 * Opens stream `index` of GET /changes, even ones with the admin's token, odd ones anonymous; resolves on
 * its 200 (the gateway counts a stream before it answers). Each on a socket of its own, read without
 * Node's HTTP client (raw-stream.mjs: half the reader's CPU, on cores the system shares).
 */
function open (index) {
  return new Promise((resolve, reject) => {
    const s = { admin: index % 2 === 0, twice: 0, failed: '', closing: false, close: () => {} }
    const fail = (why) => { if (!s.closing && !s.failed) s.failed = why }
    let answered = false
    const onCreated = createdReader((id, committedAt) => {
      const arrivedAt = wallNow()
      const r = record(id)
      if (Number.isNaN(r.committedAt)) r.committedAt = committedAt()
      if (Number.isNaN(r.arrivals[index])) r.arrivals[index] = arrivedAt
      else s.twice++
    })
    const socket = rawGet({ host: url.hostname, port: Number(url.port), path: '/changes', headers: { accept: 'text/event-stream', ...(s.admin ? { authorization: `Bearer ${token}` } : {}) } }, {
      onHead: (status) => {
        answered = true
        if (status !== 200) {
          socket.destroy()
          return reject(new Error(`stream ${index}: GET /changes answered ${status}`))
        }
        resolve(s)
      },
      onBytes: onCreated,
      onEnd: (why) => {
        if (!answered) reject(new Error(`stream ${index}: ${why}`))
        fail(why === 'the server ended the body' || why === 'the socket closed' ? 'the gateway ended it' : why)
      },
    })
    s.close = () => { s.closing = true; socket.destroy() }
  })
}

const url = new URL(base)
const streams = []
try {
  // a hundred at a time: a thousand connections at once would overrun the listen backlog
  for (let i = 0; i < count; i += 100) streams.push(...await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, k) => open(i + k))))
  parentPort.postMessage({ type: 'open' })
} catch (err) {
  parentPort.postMessage({ type: 'error', message: err.message })
}

parentPort.on('message', (m) => {
  if (m.type === 'missing') {
    // how many (stream, create) pairs of `ids` are still to come, on the streams that may read them
    let missing = 0
    streams.forEach((s, i) => {
      if ((s.admin || m.anonymousReads) && !s.failed) for (const id of m.ids) if (Number.isNaN(created.get(id)?.arrivals[i] ?? Number.NaN)) missing++
    })
    parentPort.postMessage({ type: 'missing', missing })
  } else if (m.type === 'close') {
    for (const s of streams) s.close()
    parentPort.postMessage({ type: 'closed', streams: streams.map(({ admin, twice, failed }) => ({ admin, twice, failed })), created: [...created] })
    parentPort.close()
  }
})
