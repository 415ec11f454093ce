#!/usr/bin/env node
// `npm run bench:live`: live changes at scale (decisions §17). Starts the system as `npm start` does on the
// bench's store of 10,000 objects, then
//   (A) cached reads, GET /objects/{id} over 1,000 documents in turn (bench.mjs's (e)), beside creates at
//       LIVE_WRITES/s, with no stream open;
//   (B) LIVE_STREAMS streams of GET /changes open on the gateway, half with the admin's token and half
//       anonymous, then the same reads and creates. Each create's object.created is awaited on every stream
//       that may read it, its latency taken from the commit time the event carries (and, as bounds, from
//       the create's answer and from its request); the gateway's memory is read before, with and after the
//       streams;
//   (A') (A) again once the streams are closed: the reads without streams are the mean of (A) and (A'), so
//       that neither the JIT's warm-up nor the store's growth favours one side.
// Exits 1 when a stream fails or ends before it is closed, misses an event it may read, or gets one twice.
// Env: LIVE_STREAMS (1000), LIVE_DURATION (s of reads per phase, 10), LIVE_WRITES (creates/s, 100),
// LIVE_CONNECTIONS (of the reads, 50; 1 leaves the events' latency nearly alone with the creates),
// LIVE_FIRST_WARMUP (s of reads before (A), 10; 2 before (B)), LIVE_MAX_STREAMS_PER_CALLER (2000 or
// LIVE_STREAMS if more: every anonymous stream comes from one address), LOG_LEVEL (info), and any system setting.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import autocannon from 'autocannon'
import { describeMemory, memoryOfServices } from './memory.mjs'
import { inTurn, spreadIds } from './read-targets.mjs'
import { cpuSecondsOf, freePort, seedBenchStore, start, writeLoop } from './system.mjs'

const streamCount = Number(process.env.LIVE_STREAMS ?? 1000)
const duration = Number(process.env.LIVE_DURATION ?? 10)
const writesPerS = Number(process.env.LIVE_WRITES ?? 100)
const firstWarmup = Number(process.env.LIVE_FIRST_WARMUP ?? 10)
const connections = Number(process.env.LIVE_CONNECTIONS ?? 50)
const perCaller = process.env.LIVE_MAX_STREAMS_PER_CALLER ?? String(Math.max(2000, streamCount))
const dataDir = mkdtempSync(join(tmpdir(), 'content-live-'))
const password = 'bench-admin-password'
const MiB = 1024 * 1024
/** How long the events of the last creates may take to reach every stream once the load stops. */
const DRAIN_MS = 15_000

const system = start('scripts/start.mjs', {
  DATA_DIR: dataDir, PORT: String(await freePort()), SEED_DEMO: 'false', ADMIN_PASSWORD: password,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', LIVE_MAX_STREAMS_PER_CALLER: perCaller,
}, { logFile: join(dataDir, 'system.log') })
const base = await system.ready
const failures = []
/** the thread that holds the streams (live-readers.mjs) */
let readers

try {
  const services = JSON.parse(readFileSync(join(dataDir, 'services.json'), 'utf8'))
  const refs = await seedBenchStore(dataDir, password)
  const login = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })
  const token = (await login.json()).data.access_token
  const gateway = () => fetch(services.metrics.gateway, { signal: AbortSignal.timeout(30_000) }).then((r) => r.text(), () => '')
  const gatewayMemory = async () => memoryOfServices({ gateway: services.metrics.gateway })
  console.log(`${streamCount} streams (LIVE_MAX_STREAMS_PER_CALLER=${perCaller}: the anonymous ones share one client address), ${writesPerS} creates/s, ${duration} s of reads per phase`)

  const reads = { url: `${base}/objects/${refs.d0}`, connections, requests: [inTurn(spreadIds(refs))] }
  /** The reads beside the creates: warm-up, then the figure. */
  async function readsBesideWrites (warmup, onCreated) {
    const writes = writeLoop(base, token, refs.s9, writesPerS, onCreated)
    const began = performance.now()
    await autocannon({ ...reads, duration: warmup })
    // who used the two cores: each service, and this process (the reads, the creates and the streams' thread)
    const before = { services: await cpuSecondsOf(services.metrics), self: process.cpuUsage() }
    const r = await autocannon({ ...reads, duration })
    // the gateway's event-loop delay since the scrape above (prom-client starts it over at each scrape)
    const lagText = await gateway()
    const ms = (name) => Number((gaugeOf(lagText, name) * 1000).toFixed(1))
    const lag = { p99: ms('nodejs_eventloop_lag_p99_seconds'), max: ms('nodejs_eventloop_lag_max_seconds') }
    const after = await cpuSecondsOf(services.metrics)
    const self = process.cpuUsage(before.self)
    const cpu = Object.fromEntries([...Object.keys(after).map((k) => [k, (after[k] - before.services[k]) / duration]), ['client', (self.user + self.system) / 1e6 / duration]])
    writes.stop()
    await writes.settled()
    const seconds = (performance.now() - began) / 1000
    return { r, writes: writes.counts, writesPerS: writes.counts.ok / seconds, cpu, lag }
  }
  const describeReads = (name, { r, writes, writesPerS: w, cpu, lag }) => console.log(
    `(${name}) ${Math.round(r.requests.average)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}   creates ${writes.ok} (${w.toFixed(0)}/s), not 201: ${writes.failed}${writes.failed > 0 ? ` ${JSON.stringify(writes.reasons)}` : ''}
    CPU s/s: ${Object.entries(cpu).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}; the gateway's event-loop delay p99 ${lag.p99.toFixed(0)} ms, max ${lag.max.toFixed(0)} ms`)

  const a = await readsBesideWrites(firstWarmup)
  describeReads('A, no stream', a)
  const memory = { before: await gatewayMemory() }

  // (B): the streams (in their thread: live-readers.mjs), then the same load; each create's times, on the
  // wall clock as the streams' arrivals are
  readers = new Worker(new URL('./live-readers.mjs', import.meta.url), { workerData: { base, token, count: streamCount } })
  /** The readers' next message of `type` (or their failure). */
  const reply = (type) => new Promise((resolve, reject) => {
    const done = () => {
      readers.off('message', onMessage)
      readers.off('error', onError)
    }
    const onError = (err) => { done(); reject(err) }
    const onMessage = (m) => {
      if (m.type !== type && m.type !== 'error') return
      done()
      if (m.type === 'error') reject(new Error(m.message))
      else resolve(m)
    }
    readers.on('message', onMessage)
    readers.on('error', onError)
  })
  await reply('open')
  const writeTimes = new Map()
  memory.openIdle = await gatewayMemory()
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  const b = await readsBesideWrites(2, (id, startedAt, answeredAt) => writeTimes.set(id, { startedAt: performance.timeOrigin + startedAt, answeredAt: performance.timeOrigin + answeredAt }))
  loopDelay.disable()
  describeReads(`B, ${streamCount} streams open`, b)

  // every stream may read what the admin creates when its status is public: ask as an anonymous reader
  const ids = [...writeTimes.keys()]
  const anonymousReads = ids.length > 0 && (await fetch(`${base}/objects/${ids[0]}`)).status === 200
  const expects = (s) => s.admin || anonymousReads
  const drainUntil = performance.now() + DRAIN_MS
  while (performance.now() < drainUntil) {
    const asked = reply('missing')
    readers.postMessage({ type: 'missing', ids, anonymousReads })
    if ((await asked).missing === 0) break
    await sleep(200)
  }
  const metricsOpen = await gateway()
  memory.openAfterLoad = await gatewayMemory()

  const closing = reply('closed')
  readers.postMessage({ type: 'close' })
  const { streams, created: arrived } = await closing
  const created = new Map(arrived)
  const closedUntil = performance.now() + 10_000
  while (gaugeOf(await gateway(), 'content_live_streams') > 0 && performance.now() < closedUntil) await sleep(200)
  await sleep(2000)
  const metricsAfter = await gateway()
  memory.afterClose = await gatewayMemory()
  const again = await readsBesideWrites(2)
  describeReads("A', the streams closed", again)

  // latency over every (stream, event) pair expected
  const fromCommit = []
  const fromAnswer = []
  const fromRequest = []
  const missed = { admin: 0, anonymous: 0 }
  for (const id of ids) {
    const { startedAt, answeredAt } = writeTimes.get(id)
    const { committedAt, arrivals } = created.get(id) ?? { committedAt: Number.NaN, arrivals: [] }
    streams.forEach((s, i) => {
      if (!expects(s)) return
      if (Number.isNaN(arrivals[i] ?? Number.NaN)) missed[s.admin ? 'admin' : 'anonymous']++
      else {
        fromCommit.push(arrivals[i] - committedAt)
        fromAnswer.push(arrivals[i] - answeredAt)
        fromRequest.push(arrivals[i] - startedAt)
      }
    })
  }
  const received = fromCommit.length
  const expected = ids.length * streams.filter(expects).length
  const twice = streams.reduce((n, s) => n + s.twice, 0)
  const strangers = [...created.keys()].filter((id) => !writeTimes.has(id)).length
  const failed = streams.filter((s) => s.failed)
  const withoutStreams = (a.r.requests.average + again.r.requests.average) / 2
  const ratio = b.r.requests.average / withoutStreams
  const latency = { fromCommit: spread(fromCommit), fromAnswer: spread(fromAnswer), fromRequest: spread(fromRequest) }
  const live = { sent: gaugeOf(metricsOpen, 'content_live_events_sent_total'), droppedSlow: gaugeOf(metricsAfter, 'content_live_streams_dropped_total{reason="slow"}'), openAfterClose: gaugeOf(metricsAfter, 'content_live_streams') }

  console.log(`    creates answered 201 while the streams were open: ${ids.length}; anonymous streams ${anonymousReads ? 'may' : 'may not'} read them`)
  console.log(`    object.created received ${received} of ${expected} expected (missed: admin ${missed.admin}, anonymous ${missed.anonymous}; twice ${twice}; for creates not answered 201 ${strangers}); the gateway counted ${live.sent} events of every type sent`)
  console.log(`    commit → event, from the commit time the event carries:  ${describeSpread(latency.fromCommit)}   (target p99 ≤ 100 ms)`)
  console.log(`    from the create's 201 at this client (a lower bound):   ${describeSpread(latency.fromAnswer)}`)
  console.log(`    from the create's request (an upper bound):             ${describeSpread(latency.fromRequest)}`)
  console.log(`    the main thread's event-loop delay during (B): p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms (it delays the creates' times, not the streams')`)
  console.log(`    memory before the streams: ${describeMemory(memory.before)}`)
  console.log(`    memory with them open, idle: ${describeMemory(memory.openIdle)}`)
  console.log(`    memory with them open, after the load: ${describeMemory(memory.openAfterLoad)}`)
  console.log(`    memory after they closed: ${describeMemory(memory.afterClose)}`)
  console.log(`    streams dropped as slow ${live.droppedSlow}; open after closing ${live.openAfterClose}; failed or ended early ${failed.length}${failed.length > 0 ? ` (first: ${failed[0].failed})` : ''}`)
  console.log(`    reads with streams ÷ without (the mean of (A) and (A')): ${ratio.toFixed(2)} (target ≥ 0.8)`)

  if (failed.length > 0) failures.push(`${failed.length} streams failed or ended before they were closed (first: ${failed[0].failed})`)
  if (missed.admin > 0 || missed.anonymous > 0) failures.push(`events missed: admin streams ${missed.admin}, anonymous streams ${missed.anonymous}`)
  if (twice > 0) failures.push(`${twice} events came twice on one stream`)
  if (ids.length === 0) failures.push('no create was answered 201 while the streams were open')
  const summary = {
    streams: streamCount, maxStreamsPerCaller: Number(perCaller), writesPerS: Math.round(b.writesPerS), durationS: duration,
    reads: { before: Math.round(a.r.requests.average), withStreams: Math.round(b.r.requests.average), after: Math.round(again.r.requests.average), ratio: Number(ratio.toFixed(3)), p99Ms: { before: a.r.latency.p99, withStreams: b.r.latency.p99, after: again.r.latency.p99 } },
    events: { expected, received, missedAdmin: missed.admin, missedAnonymous: missed.anonymous, twice, ofCreatesNot201: strangers },
    latencyMs: latency,
    gatewayMiB: Object.fromEntries(Object.entries(memory).map(([when, m]) => [when, { rss: Math.round(m.gateway.rss / MiB), heap: Math.round(m.gateway.heap / MiB) }])),
    cpuSecondsPerSecond: Object.fromEntries(Object.entries({ A: a, B: b, "A'": again }).map(([k, v]) => [k, Object.fromEntries(Object.entries(v.cpu).map(([s, c]) => [s, Number(c.toFixed(2))]))])),
    gatewayLoopDelayMs: { A: a.lag, B: b.lag, "A'": again.lag },
    clientLoopDelayP99Ms: Number((loopDelay.percentile(99) / 1e6).toFixed(1)),
    failures,
  }
  console.log(JSON.stringify(summary))
} finally {
  await readers?.terminate()
  system.child.kill('SIGTERM')
  await new Promise((resolve) => system.child.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
if (failures.length > 0) {
  console.error(`live streams: ${failures.join('; ')}`)
  process.exitCode = 1
}

/** A sample or counter of the exposition `text` (its name with labels as printed); NaN when absent. */
function gaugeOf (text, name) {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return Number(line?.slice(name.length + 1) ?? Number.NaN)
}

function spread (values) {
  const sorted = Float64Array.from(values).sort()
  const at = (p) => Number((sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN).toFixed(1))
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) }
}

function describeSpread (s) {
  return `p50 ${s.p50} ms   p95 ${s.p95} ms   p99 ${s.p99} ms   max ${s.max} ms   (${s.n} pairs)`
}
