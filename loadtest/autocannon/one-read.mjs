#!/usr/bin/env node
// One read figure of `bench.mjs`, alone: starts the system as `npm start` does on the bench's store of
// 10,000 objects, then measures one read ONE_READ rounds times (2 s of warm-up, then ONE_READ_DURATION s)
// with the CPU each service spent per request, and how the reads reached the objects service (alone, or
// in how many coalesced batches). For comparing two builds of a service side by side
// (swap its `dist` between runs) without the rest of the bench's figures in between.
//
// Env: ONE_READ (a: a single object, b: the page of 20, e: 1,000 objects in turn, p: every page of 20 of
// 10 sections in turn; default a), LOG_LEVEL (info, as npm start; the system's lines go to a file),
// ONE_READ_ROUNDS (2), ONE_READ_DURATION (s, 5), ONE_READ_WRITES (creates/s beside the reads, 0), and any
// system setting (READ_CACHE=false, CPU_PROF_DIR, …).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { inTurn, sectionPages, spreadIds } from './read-targets.mjs'
import { callsAnsweredAt, cpuSecondsOf, freePort, seedBenchStore, start, writeLoop } from './system.mjs'

const which = process.env.ONE_READ ?? 'a'
const rounds = Number(process.env.ONE_READ_ROUNDS ?? 2)
const duration = Number(process.env.ONE_READ_DURATION ?? 5)
const writesPerS = Number(process.env.ONE_READ_WRITES ?? 0)
const dataDir = mkdtempSync(join(tmpdir(), 'content-one-read-'))
const password = 'bench-admin-password'

const system = start('scripts/start.mjs', { DATA_DIR: dataDir, PORT: String(await freePort()), SEED_DEMO: 'false', ADMIN_PASSWORD: password, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }, { logFile: join(dataDir, 'system.log') })
const base = await system.ready

try {
  const services = JSON.parse(readFileSync(join(dataDir, 'services.json'), 'utf8'))
  const refs = await seedBenchStore(dataDir, password)

  const spread = { e: () => spreadIds(refs), p: () => sectionPages(base, refs) }[which]
  const options = {
    url: which === 'b' ? `${base}/objects/big/children?page_size=20` : `${base}/objects/${refs.d1234}`,
    connections: 50,
    ...(spread ? { requests: [inTurn(await spread())] } : {}),
  }
  let writes
  if (writesPerS > 0) {
    const login = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })
    writes = writeLoop(base, (await login.json()).data.access_token, refs.s9, writesPerS)
  }
  // how the reads reached the objects service: alone, or as members of coalesced batches
  const method = which === 'b' || which === 'p' ? 'ListTree' : 'GetObject'
  for (let round = 0; round < rounds; round++) {
    await autocannon({ ...options, duration: 2 })
    const callsBefore = await callsAnsweredAt(services.metrics.objects, ['CallBatch', method])
    const before = await cpuSecondsOf(services.metrics)
    const r = await autocannon({ ...options, duration })
    const after = await cpuSecondsOf(services.metrics)
    const calls = await callsAnsweredAt(services.metrics.objects, ['CallBatch', method])
    const perRequest = (s) => (((after[s] - before[s]) * 1000) / r.requests.total).toFixed(3)
    console.log(`(${which}) ${Math.round(r.requests.average)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}   cpu ms/req: gateway ${perRequest('gateway')}, objects ${perRequest('objects')}`)
    const batched = calls.batched - callsBefore.batched
    console.log(`    the objects service answered ${calls[method] - callsBefore[method]} ${method}: ${batched} in ${calls.CallBatch - callsBefore.CallBatch} batches, ${calls[method] - callsBefore[method] - batched} as calls of their own`)
  }
  writes?.stop()
  if (writes && writes.counts.failed > 0) console.log(`creates not answered 201: ${writes.counts.failed}`)
} finally {
  system.child.kill('SIGTERM')
  await new Promise((resolve) => system.child.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
