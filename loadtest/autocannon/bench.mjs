#!/usr/bin/env node
// `npm run bench`: starts the system as `npm start` does (LOG_LEVEL info, the read cache on, its log lines
// written to a file) on a store of 10,000 objects and measures, in one run, requests/s and p50/p99 latency
// at 50 connections. The headline reads spread over many URLs: (e) GET /objects/{id} over 1,000 documents
// in turn, (p) every page of 20 of 10 sections in turn; each beside (d), a bare fastify server answering a
// document's bytes, measured in the same phase. They run four times: at info and at warn, each with the
// read cache on and off (the system restarted on the same store between). The runs of one URL repeated
// are the best case: (a) GET /objects/{id}, (b) one page of 20, (c) (a) with a bearer token, (f) (a) while
// 20 creates/s run beside it (BENCH_WRITES_PER_S), their changes delivered to a loopback webhook receiver;
// (d2)/(d3) are the floors of one backend call per request and per turn; (w) creates at 10 connections;
// then the media figures (g)–(j) of media.mjs. Each figure with the server CPU it cost per request in
// each service (from their /metrics), each phase with each service's RSS and heap after it.
// BENCH_ONLY=leak (`npm run bench:leak`): (e), (p) and (w) BENCH_LEAK_ROUNDS (3) times back to back on
// one process set, memory after each round; fails when a service keeps growing past the bound (memory.mjs).
// BENCH_ONLY=scale instead loads a store shaped like real content (fixtures.mjs scaleObjects: a
// 10,000-child section, nested sections, images attached to documents, `seealso` between documents) of
// BENCH_OBJECTS objects, in fixtures files of BENCH_CHUNK objects (a fixtures file is bounded by the objects
// service's gRPC message limit), prints the load time, and measures a read, children first and last page,
// descendants, a relations list, a `filter[query]` search and creates — run it with BENCH_OBJECTS=10000
// and =1000000 (and READ_CACHE=false) to compare.
// Env: BENCH_DURATION (s, default 10), BENCH_FIRST_WARMUP (s of load before a fresh process's first figure, 10; 2 for the others),
// BENCH_CONNECTIONS (50), BENCH_OBJECTS (10000),
// BENCH_ONLY (reads | media | scale | writes | leak: reads and media by default), BENCH_CHUNK (100000),
// BENCH_STORE (sqlite | postgres: the store every service runs on).
import { spawnSync } from 'node:child_process'
import { createServer as createHttpServer } from 'node:http'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { OTHER_RARE_WORD, RARE_WORD, benchCategories, benchFixtures, scaleObjects } from './fixtures.mjs'
import { measureMedia } from './media.mjs'
import { describeMemory, leaks, memoryOfServices } from './memory.mjs'
import { inTurn, sectionPages, spreadIds } from './read-targets.mjs'
import { processCpuSeconds } from './process-cpu.mjs'
import { callsAnsweredAt, cpuSecondsOf, freePort, root, start, writeLoop } from './system.mjs'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const total = Number(process.env.BENCH_OBJECTS ?? 10_000)
const dataDir = mkdtempSync(join(tmpdir(), 'content-bench-'))
const password = 'bench-admin-password'
const only = process.env.BENCH_ONLY ?? ''

/** Each service's /metrics address (from services.json), once the system is up. */
let metricsUrls = {}

/** Each service's CPU seconds so far, and the ceiling's while it runs: its CPU a request is the steadier side of a ratio (printHeadline). */
const cpuSeconds = async () => ({ ...await cpuSecondsOf(metricsUrls), ...(ceiling ? { ceiling: processCpuSeconds(ceiling.child.pid) } : {}) })

/**
 * Seconds of load before a figure. The first figure of a freshly started process gets more: Node 20's JIT
 * takes some 10 s of load to optimize a service's hot paths, and a figure taken before measures that
 * (loadtest/README.md, "JIT warm-up on Node 20").
 */
const WARMUP_S = 2
const FIRST_WARMUP_S = Number(process.env.BENCH_FIRST_WARMUP ?? 10)
const fresh = { warmup: FIRST_WARMUP_S }

async function measure (name, url, headers = {}, paths, extra = {}) {
  // With `paths`, every request picks one at random (the same URL shape over many objects).
  const pick = (request) => ({ ...request, path: paths[Math.floor(Math.random() * paths.length)] })
  const { warmup = WARMUP_S, ...more } = extra
  const options = { url, connections, headers, ...(paths ? { requests: [{ method: 'GET', setupRequest: pick }] } : {}), ...more }
  await autocannon({ ...options, duration: warmup })
  const before = await cpuSeconds()
  const r = await autocannon({ ...options, duration })
  const after = await cpuSeconds()
  const figure = { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }
  // server CPU per request, per service: how many requests one core of each serves, hence how to size replicas
  figure.cpuMs = Object.fromEntries(Object.keys(after).map((s) => [s, ((after[s] - before[s]) * 1000) / r.requests.total]))
  const cpu = Object.entries(figure.cpuMs).filter(([, ms]) => ms >= 0.005 || Number.isNaN(ms)).map(([s, ms]) => `${s} ${ms.toFixed(3)}`).join(', ')
  console.log(`${name.padEnd(44)} ${String(Math.round(figure.rps)).padStart(7)} req/s   p50 ${figure.p50} ms   p99 ${figure.p99} ms   non-2xx ${figure.non2xx}   errors ${figure.errors}${cpu ? `   cpu ms/req: ${cpu}` : ''}`)
  return figure
}

/**
 * Waits for the objects service's background merge of its text index, which begins 10 s after the last
 * import (MERGE_DELAY_MS, services/objects/src/store/sqlite/text-merge.sqlite.ts) and would count into
 * the first figures: the delay, then until the service is idle (under 5 % of a core for a second, at
 * most a minute).
 */
async function quietObjects () {
  await new Promise((resolve) => setTimeout(resolve, 11_000))
  for (let i = 0; i < 60; i++) {
    const before = await cpuSeconds()
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    if ((await cpuSeconds()).objects - before.objects < 0.05) return
  }
}

/** A loopback webhook receiver: when each delivery arrived, and how long after its commit. */
async function webhookReceiver () {
  const lags = []
  const server = createHttpServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      lags.push(Date.now() - Date.parse(JSON.parse(body).timestamp))
      res.writeHead(204).end()
    })
  })
  await new Promise((res) => server.listen(0, '127.0.0.1', res))
  return { url: `http://127.0.0.1:${server.address().port}/`, lags, close: () => new Promise((res) => server.close(res)) }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN

/**
 * Loads `objects` (every ref naming an earlier object) as fixtures files of `chunk` objects, each all or
 * nothing, refs of earlier files given as ids; prints the time and rate, in all and of the loader alone
 * (`seed`, from reading a file to its last write: generating and writing the files is the bench's own
 * work). Answers every ref's id.
 */
async function loadInChunks (objects, file, seed, chunk = Number(process.env.BENCH_CHUNK ?? 100_000)) {
  const ids = {}
  const target = (t) => (typeof t === 'string' && ids[t] !== undefined ? ids[t] : t)
  let batch = []
  let files = 0
  let seeding = 0
  const perFile = []
  const started = Date.now()
  const flush = async () => {
    writeFileSync(file, JSON.stringify({ categories: files === 0 ? benchCategories() : [], objects: batch }))
    const seeded = Date.now()
    Object.assign(ids, await seed())
    perFile.push(Date.now() - seeded)
    seeding += Date.now() - seeded
    files++
    batch = []
  }
  for (const o of objects) {
    o.parents = o.parents.map(target)
    for (const items of Object.values(o.relations ?? {})) for (const item of items) item.related = target(item.related)
    batch.push(o)
    if (batch.length === chunk) await flush()
  }
  if (batch.length > 0) await flush()
  const seconds = (Date.now() - started) / 1000
  const count = Object.keys(ids).length
  console.log(`loaded ${count} objects in ${seconds.toFixed(1)} s (${Math.round(count / seconds)} objects/s, ${files} fixtures file${files === 1 ? '' : 's'} of up to ${chunk}); ` +
    `the loader's own ${(seeding / 1000).toFixed(1)} s: ${Math.round(count / (seeding / 1000))} objects/s`)
  if (files > 1) console.log(`the loader's own time per file, in order: ${perFile.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`)
  return ids
}

/**
 * The query grammar (decisions §15) on the scale store: filtered and sorted pages with and without a
 * count, a date range with a custom property, an OR of two title searches, includes, and a cursor walk's
 * first page against its 10,000th (reached by walking, 100 objects a step, then read 20 at a time).
 */
async function measureQueries (base) {
  const tagged = `${base}/objects?filter[tags]=tag-7&sort=-publication_date&page_size=20`
  const deep = await cursorAt(`${base}/objects?cursor=%s&page_size=100&count=none&fields=id`, 10_000 * 20 / 100)
  const runs = [
    await measure('(q1) tag filter, sort -publication_date', tagged),
    await measure('(q2) the same, count=none', `${tagged}&count=none`),
    await measure('(q3) date range + custom property', `${base}/objects?filter[publication_date][between]=2020-01-02,2020-01-03T12:00:00Z&filter[custom_properties.n][starts_with]=15&page_size=20`),
    await measure('(q4) OR of two titles\' contains', `${base}/objects?filter[or][0][title][contains]=${RARE_WORD}&filter[or][1][title][contains]=${OTHER_RARE_WORD}&page_size=20`),
    await measure('(q5) page of 20, no include', `${base}/objects/big/children?page_size=20&page=3`),
    await measure('(q6) the same page, include=poster,attach', `${base}/objects/big/children?page_size=20&page=3&include=poster,attach`),
    await measure('(q7) descendants by cursor, page 1', `${base}/objects?cursor=start&page_size=20&count=none`),
  ]
  if (deep !== null) runs.push(await measure('(q8) descendants by cursor, page 10,000', `${base}/objects?cursor=${deep}&page_size=20&count=none`))
  else console.log('(q8) descendants by cursor, page 10,000: the store holds fewer than 200,000 objects')
  return runs
}

/** Walks a cursor list `steps` pages from the start; the cursor there, or null when the list ends first. */
async function cursorAt (template, steps) {
  let cursor = 'start'
  for (let i = 0; i < steps; i++) {
    const page = await (await fetch(template.replace('%s', cursor))).json()
    cursor = page.paging?.next_cursor
    if (!cursor) return null
  }
  return cursor
}

/** BENCH_ONLY=scale: reads whose cost may grow with the store, and creates; answers the names of runs with errors. */
async function measureScale (base, token, refs) {
  const page = await (await fetch(`${base}/objects/big/children?page_size=20`)).json()
  const lastPage = page.paging.total_pages
  const runs = [
    await measure('(s1) GET /objects/{id}', `${base}/objects/${refs.d1234}`, {}, undefined, fresh),
    await measure('(s2) children, first page (page_size=20)', `${base}/objects/big/children?page_size=20`),
    await measure(`(s3) children, last page (page=${lastPage})`, `${base}/objects/big/children?page_size=20&page=${lastPage}`),
    await measure('(s4) descendants of a top section, page 1', `${base}/objects/section-0/descendants?page_size=20`),
    await measure('(s5) GET /objects/{id}/relations/attach', `${base}/objects/${refs.d1235}/relations/attach`),
    await measure(`(s6) filter[query]=${RARE_WORD}`, `${base}/objects?filter[query]=${RARE_WORD}&page_size=20`),
    ...await measureQueries(base),
    await measureCreates(base, token, refs.u3),
  ]
  console.log(`    big section: ${page.paging.total} children; filter[query]=${RARE_WORD} matches ${(await (await fetch(`${base}/objects?filter[query]=${RARE_WORD}`)).json()).paging.total}`)
  return runs.filter((x) => x.non2xx > 0 || x.errors > 0).map((x) => x.name)
}

/** Connections of the creates figure: ten writers at once, not the readers' fifty. */
const CREATE_CONNECTIONS = 10

/** (w), (s7): creates of documents shaped like the store's under `parent`, at 10 connections (BENCH_ONLY=writes runs it alone). */
async function measureCreates (base, token, parent) {
  let n = 0
  const create = {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    // a title of its own per create (equal titles would make each nickname probe past the ones before),
    // and a description and body like the store's documents: the text index takes every word of them
    setupRequest: (request) => {
      const title = `Created by the bench ${Date.now()} ${++n}`
      const data = { object_type: 'document', title, description: `Description of ${title}`, body: `<p>Body of ${title}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`, parents: [parent] }
      return { ...request, body: JSON.stringify({ data }) }
    },
  }
  const before = await callsAnsweredAt(metricsUrls.objects, ['CallBatch', 'SaveObject'])
  const figure = await measure(`(w) POST /objects (create), ${CREATE_CONNECTIONS} connections`, `${base}/objects`, {}, undefined, { requests: [create], connections: CREATE_CONNECTIONS })
  const after = await callsAnsweredAt(metricsUrls.objects, ['CallBatch', 'SaveObject'])
  // a save alone in its gateway turn is its own SaveObject call; the others reach the objects service in batches (COALESCE_WRITES)
  const saves = after.SaveObject - before.SaveObject
  const batches = after.CallBatch - before.CallBatch
  console.log(`${' '.repeat(46)}the objects service answered ${saves} saves in ${batches} batches and ${saves - (after.batched - before.batched)} calls of their own`)
  return figure
}

const ratio = (x, d) => (x.rps / d.rps).toFixed(2)

/**
 * The headline: each read spread over many URLs, at `npm start`'s log level (info) and at warn, with the
 * read cache on and off, each against the ceiling measured in the same phase; then the targets.
 */
function printHeadline (phases, { b, c, d, d2, d3, f, w }) {
  const label = ({ env }) => `${env.LOG_LEVEL}, cache ${env.READ_CACHE === 'true' ? 'on' : 'off'}`
  const cell = (x, ceiling) => (x === undefined ? '' : `${Math.round(x.rps)} (${ratio(x, ceiling)}, p99 ${x.p99})`)
  console.log(`\nheadline, req/s (ratio to the ceiling (d), the mean of its runs before and after the phase's reads, p99 ms):\n${''.padEnd(40)}${phases.map((ph) => label(ph).padEnd(30)).join('')}`)
  const rows = [['(d) ceiling', 'd'], ['(e) 1,000 ids in turn', 'e'], ['(p) pages of 20 over 10 sections', 'p'], ['(a) best case: one URL repeated', 'a']]
  for (const [name, key] of rows) console.log(`${name.padEnd(40)}${phases.map((ph) => cell(ph[key], ph.d).padEnd(30)).join('')}`)
  // The ceiling's own throughput moves by a quarter from one run to the next on a shared machine, the
  // gateway's CPU a request much less (loadtest/README.md, "The ceiling moves more than the gateway"):
  // the CPU a request of each, and their ratio for (a), say what a single run's ratios cannot.
  const us = (x, service) => (x === undefined ? '' : (x.cpuMs[service] * 1000).toFixed(1))
  console.log(`${'CPU a request, µs: the ceiling'.padEnd(40)}${phases.map((ph) => us(ph.d, 'ceiling').padEnd(30)).join('')}`)
  for (const [, key] of rows.slice(1)) console.log(`${`  the gateway, (${key})`.padEnd(40)}${phases.map((ph) => us(ph[key], 'gateway').padEnd(30)).join('')}`)
  console.log(`${'(a) by CPU: the ceiling\'s ÷ the gateway\'s'.padEnd(40)}${phases.map((ph) => (ph.a === undefined ? '' : (ph.d.cpuMs.ceiling / ph.a.cpuMs.gateway).toFixed(2)).padEnd(30)).join('')}`)
  const [infoOn, infoOff, warnOn] = phases
  console.log(`best case, info, cache on: (b) one page repeated ${ratio(b, infoOn.d)}, (c) with a bearer token ${ratio(c, infoOn.d)}, (f) while creates run ${ratio(f, infoOn.d)} (p99 ${f.p99} ms)`)
  console.log(`floors: (d2)/(d) = ${ratio(d2, d)}, (d3)/(d) = ${ratio(d3, d)}`)
  const check = (ok) => (ok ? 'met' : 'NOT met')
  console.log('\ntargets:')
  console.log(`  (p) cache off, info: ${ratio(infoOff.p, infoOff.d)} of the ceiling (≥ 0.10), p99 ${infoOff.p.p99} ms (≤ 30): ${check(infoOff.p.rps / infoOff.d.rps >= 0.10 && infoOff.p.p99 <= 30)}`)
  console.log(`  (e) cache off, info: ${ratio(infoOff.e, infoOff.d)} of the ceiling (≥ 0.30): ${check(infoOff.e.rps / infoOff.d.rps >= 0.30)}`)
  const atInfo = infoOn.a.rps / infoOn.d.rps
  const atWarn = warnOn.a.rps / warnOn.d.rps
  const below = Math.round((1 - atInfo / atWarn) * 100)
  console.log(`  (a) cache on, info: ${atInfo.toFixed(2)} of the ceiling (≥ 0.80), ${below >= 0 ? `${below} % below` : `${-below} % above`} warn's ${atWarn.toFixed(2)} (≤ 15 % below): ${check(atInfo >= 0.80 && atInfo >= 0.85 * atWarn)}`)
  console.log(`  (w) creates: ${Math.round(w.rps)}/s (≥ 1,000) at ${CREATE_CONNECTIONS} connections, p99 ${w.p99} ms (≤ 50): ${check(w.rps >= 1_000 && w.p99 <= 50)}`)
}

/** Rounds of the leak check (BENCH_LEAK_ROUNDS, 3). */
const LEAK_ROUNDS = Number(process.env.BENCH_LEAK_ROUNDS ?? 3)

/**
 * BENCH_ONLY=leak (`npm run bench:leak`): every URL read once, then the same load LEAK_ROUNDS times back
 * to back on one process set, at info with the read cache on, each service's RSS and heap after each
 * round; answers the services that keep growing past the bound (memory.mjs).
 */
async function leakCheck ({ base, token, refs }) {
  const spread = spreadIds(refs)
  const pages = await sectionPages(base(), refs)
  // every URL of the rounds read once first, so that the caches hold them all before round 1 however
  // few requests a busy machine lets round 1 make: after it, growth is no cache filling
  await autocannon({ url: base(), connections: 10, amount: spread.length + pages.length, requests: [inTurn([...spread, ...pages])] })
  const rounds = []
  for (let round = 1; round <= LEAK_ROUNDS; round++) {
    console.log(`\nround ${round} of ${LEAK_ROUNDS}`)
    const runs = [
      await measure('(e) GET /objects/{id}, 1,000 ids in turn', `${base()}/objects/${refs.d1}`, {}, undefined, { ...(round === 1 ? fresh : {}), requests: [inTurn(spread)] }),
      await measure('(p) pages of 20 over 10 sections in turn', `${base()}/objects/${refs.s0}/children?page_size=20`, {}, undefined, { requests: [inTurn(pages)] }),
      await measureCreates(base(), token, refs.s9),
    ]
    const bad = runs.filter((x) => x.non2xx > 0 || x.errors > 0)
    if (bad.length > 0) return bad.map((x) => `round ${round} ${x.name}`)
    const memory = await memoryOfServices(metricsUrls)
    console.log(`    memory after round ${round}: ${describeMemory(memory)}`)
    rounds.push(memory)
  }
  const found = leaks(rounds)
  console.log(found.length === 0 ? '\nno service kept growing past the bound' : `\nleaking:\n  ${found.join('\n  ')}`)
  return found.map((why) => `leak: ${why}`)
}

// BENCH_STORE=postgres: the system on PostgreSQL, in a database of its own made on the machine's server
// (TEST_POSTGRES_URL names another) and dropped at the end; SQLite otherwise
const database = process.env.BENCH_STORE === 'postgres' ? await (await import('@content/platform/testing')).createTestDatabase('bench') : null
const storeEnv = database === null ? {} : { STORE: 'postgres', DATABASE_URL: database.url }
/** The system as `npm start` runs it, on this run's store, its log lines written to a file as `npm start > file` would. */
const systemEnv = { DATA_DIR: dataDir, SEED_DEMO: 'false', ADMIN_PASSWORD: password, WEBHOOK_ALLOW_PRIVATE: 'true', ...storeEnv }
const logFile = join(dataDir, 'system.log')
const startSystem = async (env) => start('scripts/start.mjs', { ...systemEnv, PORT: String(await freePort()), ...env }, { logFile })
/** The log level and read cache of the headline figures: `npm start`'s defaults. */
const HEADLINE = { LOG_LEVEL: 'info', READ_CACHE: 'true' }
/** The scale and writes runs keep the read cache the environment asks for. */
const FIRST = only === 'scale' || only === 'writes' ? { ...HEADLINE, READ_CACHE: process.env.READ_CACHE ?? 'true' } : HEADLINE
let system = await startSystem(FIRST)
let ceiling
let floorBackend
let floor
try {
  let base = await system.ready
  console.log(`system ready at ${base}; loading ${total} objects …`)
  const fixturesFile = join(dataDir, 'bench-fixtures.json')
  const { seedFile } = await import('@content/admin')
  const servicesNow = () => JSON.parse(readFileSync(join(dataDir, 'services.json'), 'utf8'))
  let services = servicesNow()
  metricsUrls = services.metrics
  const serviceSecret = readFileSync(join(dataDir, 'service-secret'), 'utf8')
  const seed = () => seedFile(fixturesFile, services, { serviceSecret, username: 'admin', password })
  let refs
  if (only === 'scale' || only === 'writes') {
    refs = await loadInChunks(scaleObjects({ total }), fixturesFile, seed)
    await quietObjects()
  } else {
    writeFileSync(fixturesFile, JSON.stringify(benchFixtures({ total })))
    const seeded = Date.now()
    refs = await seed()
    console.log(`loaded ${Object.keys(refs).length} objects in ${((Date.now() - seeded) / 1000).toFixed(1)} s`)
  }

  const objectUrl = `${base}/objects/${refs.d1234 ?? refs.d1}`
  const login = async () => {
    const res = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })
    return (await res.json()).data.access_token
  }
  let token = await login()
  const sample = await (await fetch(objectUrl)).text()
  /** Stops the system and starts it again on the same store with `env` (a log level, the read cache). */
  const restart = async (env) => {
    system.child.kill('SIGTERM')
    await new Promise((r) => system.child.once('exit', r))
    system = await startSystem(env)
    base = await system.ready
    services = servicesNow()
    metricsUrls = services.metrics
    token = await login()
  }
  const header = (env) => console.log(`\n${connections} connections, ${duration} s each, store ${database === null ? 'sqlite' : 'postgres'}, LOG_LEVEL ${env.LOG_LEVEL}, read cache ${env.READ_CACHE === 'true' ? 'on' : 'off'}, node ${process.version} (every service runs on it)`)
  const reportMemory = async (when) => console.log(`    memory ${when}: ${describeMemory(await memoryOfServices(metricsUrls))}`)

  const failures = []
  const failed = (...runs) => failures.push(...runs.filter((x) => x.non2xx > 0 || x.errors > 0).map((x) => x.name))
  if (only === 'writes') {
    header(FIRST)
    const run = await measureCreates(base, token, refs.u3)
    failed(run)
  }
  if (only === 'scale') {
    header(FIRST)
    failures.push(...await measureScale(base, token, refs))
    console.log('\nquery plans (loadtest/autocannon/query-plans.mjs):')
    const store = database === null ? join(dataDir, 'objects.sqlite') : (await import(join(root, 'services/objects/dist/store/postgres/migrations.postgres.js'))).storeUrl(database.url)
    spawnSync(process.execPath, [join(root, 'loadtest/autocannon/query-plans.mjs'), store], { stdio: 'inherit' })
  }
  if (only === 'leak') {
    header(HEADLINE)
    failures.push(...await leakCheck({ base: () => base, token, refs }))
  }
  if (only === '' || only === 'reads') {
    header(HEADLINE)
    ceiling = start('loadtest/autocannon/ceiling.mjs', { CEILING_BODY: sample })
    const ceilingUrl = `http://127.0.0.1:${await ceiling.ready}/objects/1`
    const d = await measure('(d) ceiling: bare fastify, same bytes', ceilingUrl, {}, undefined, fresh)
    floorBackend = start('loadtest/autocannon/call-floor-backend.mjs', { FLOOR_BODY: sample })
    floor = start('loadtest/autocannon/ceiling.mjs', { CEILING_BACKEND: await floorBackend.ready })
    const d2 = await measure('(d2) floor: (d) + one gRPC call, no work', `http://127.0.0.1:${await floor.ready}/objects/1`, {}, undefined, fresh)
    floor.child.kill('SIGTERM')
    floor = start('loadtest/autocannon/ceiling.mjs', { CEILING_BACKEND: await floorBackend.ready, CEILING_COALESCE: '1' })
    const d3 = await measure('(d3) coalescing floor: (d2), a turn\'s requests share one call', `http://127.0.0.1:${await floor.ready}/objects/1`, {}, undefined, fresh)
    floor.child.kill('SIGTERM')
    floorBackend.child.kill('SIGTERM')
    const spread = spreadIds(refs)
    const pages = await sectionPages(base, refs)
    /** The headline reads and the best case, on the system as it runs now, against the ceiling measured before and after them. */
    const reads = async (env, { first = false, bestCase = true } = {}) => {
      const figures = { env }
      figures.d = first ? d : await measure('(d) ceiling: bare fastify, same bytes', ceilingUrl)
      figures.e = await measure('(e) GET /objects/{id}, 1,000 ids in turn', `${base}/objects/${refs.d1}`, {}, undefined, { ...fresh, requests: [inTurn(spread)] })
      figures.p = await measure(`(p) pages of 20, ${pages.length} pages of 10 sections in turn`, `${base}/objects/${refs.s0}/children?page_size=20`, {}, undefined, { requests: [inTurn(pages)] })
      if (bestCase) figures.a = await measure('(a) best case: GET /objects/{id}, one URL repeated', `${base}/objects/${refs.d1234}`)
      // on a busy machine the ceiling moves within a phase: its ratios take the mean of before and after
      const after = await measure('(d) ceiling again, after the reads', ceilingUrl)
      figures.d = {
        ...figures.d, rps: (figures.d.rps + after.rps) / 2, p99: Math.max(figures.d.p99, after.p99), errors: figures.d.errors + after.errors, non2xx: figures.d.non2xx + after.non2xx,
        cpuMs: { ...figures.d.cpuMs, ceiling: (figures.d.cpuMs.ceiling + after.cpuMs.ceiling) / 2 },
      }
      return figures
    }
    const infoOn = await reads(HEADLINE, { first: true })
    const b = await measure('(b) best case: one page of 20 repeated', `${base}/objects/big/children?page_size=20`)
    const c = await measure('(c) best case: (a) with a bearer token', `${base}/objects/${refs.d1234}`, { authorization: `Bearer ${token}` })
    const perSecond = Number(process.env.BENCH_WRITES_PER_S ?? 20)
    // every change of the run is also delivered to a webhook receiver on loopback
    const receiver = await webhookReceiver()
    const added = spawnSync(process.execPath, ['services/admin/dist/main.js', 'webhooks', 'add', receiver.url, '--events', '*', '--json'], {
      cwd: root, encoding: 'utf8', env: { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD: password },
    })
    if (added.status !== 0) throw new Error(`webhooks add failed: ${added.stderr}`)
    const writes = writeLoop(base, token, refs.s9, perSecond)
    const f = await measure(`(f) (a) while ${perSecond} creates/s run beside it`, `${base}/objects/${refs.d1234}`).finally(() => writes.stop())
    await new Promise((res) => setTimeout(res, 1_000)) // the last deliveries
    await receiver.close()
    const lags = [...receiver.lags].sort((x, y) => x - y)
    console.log(`    creates answered 201: ${writes.counts.ok}, otherwise: ${writes.counts.failed}`)
    console.log(`    webhooks: ${lags.length} deliveries (${(lags.length / (duration + 2)).toFixed(1)}/s; each create is 2 events), commit → delivery p50 ${pct(lags, 0.5)} ms, p99 ${pct(lags, 0.99)} ms`)
    spawnSync(process.execPath, ['services/admin/dist/main.js', 'webhooks', 'remove', JSON.parse(added.stdout).id], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD: password } })
    const w = await measureCreates(base, token, refs.s9)
    await reportMemory('after (d)–(w)')
    failed(d, d2, d3, infoOn.e, infoOn.p, infoOn.a, b, c, f, w)
    if (writes.counts.failed > 0) failures.push('(f) creates')
    if (only === '') {
      const media = await measureMedia({
        base, token, parent: refs.s1, posterAddress: services.poster, dataDir, measure,
        startCeiling: (env) => start('loadtest/autocannon/ceiling.mjs', env),
      })
      if (media.failed) failures.push('media')
      await reportMemory('after the media figures')
    }
    const phases = [infoOn]
    for (const env of [{ LOG_LEVEL: 'info', READ_CACHE: 'false' }, { LOG_LEVEL: 'warn', READ_CACHE: 'true' }, { LOG_LEVEL: 'warn', READ_CACHE: 'false' }]) {
      await restart(env)
      header(env)
      const figures = await reads(env)
      await reportMemory('after these reads')
      failed(figures.d, figures.e, figures.p, figures.a)
      phases.push(figures)
    }
    printHeadline(phases, { b, c, d, d2, d3, f, w })
  }
  if (failures.length) {
    console.error(`errors during: ${failures.join(', ')}`)
    process.exitCode = 1
  }
} finally {
  for (const helper of [ceiling, floor, floorBackend]) helper?.child.kill('SIGTERM')
  system.child.kill('SIGTERM')
  await new Promise((r) => system.child.once('exit', r))
  rmSync(dataDir, { recursive: true, force: true })
  await database?.drop()
}
