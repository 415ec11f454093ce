#!/usr/bin/env node
// `npm run bench`: starts the system (as npm start does) on a store of 10,000 objects and measures,
// in one run, requests/s and p50/p99 latency at 50 connections for
//   (a) GET /objects/{id}   (b) GET /objects/{section}/children?page_size=20
//   (c) GET /objects/{id} with a bearer token   (d) a bare fastify server returning (a)'s bytes,
// (d2) the same server answering the bytes one gRPC call to a backend that does nothing returns,
// (e) GET /objects/{id} over 1,000 different objects at random, and (f) (a) while 20 creates/s run beside
// it (BENCH_WRITES_PER_S), their changes delivered to a loopback webhook receiver; then the media figures (g)–(j) of
// media.mjs, each with the server CPU it cost per request in each service (from their /metrics).
// BENCH_ONLY=scale instead loads a store shaped like real content (fixtures.mjs scaleObjects: a
// 10,000-child section, nested sections, images attached to documents, `seealso` between documents) of
// BENCH_OBJECTS objects, in fixtures files of BENCH_CHUNK objects (a fixtures file is bounded by the objects
// service's gRPC message limit), prints the load time, and measures a read, children first and last page,
// descendants, a relations list, a `filter[query]` search and creates — run it with BENCH_OBJECTS=10000
// and =1000000 (and READ_CACHE=false) to compare.
// Env: BENCH_DURATION (s, default 10), BENCH_FIRST_WARMUP (s of load before a fresh process's first figure, 10; 2 for the others),
// BENCH_CONNECTIONS (50), BENCH_OBJECTS (10000),
// BENCH_ONLY (reads | media | scale | writes: scale's store and only its creates; reads and media by default), BENCH_CHUNK (100000), READ_CACHE,
// BENCH_STORE (sqlite | postgres: the store every service runs on).
import { spawnSync } from 'node:child_process'
import { createServer as createHttpServer } from 'node:http'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { OTHER_RARE_WORD, RARE_WORD, benchCategories, benchFixtures, scaleObjects } from './fixtures.mjs'
import { measureMedia } from './media.mjs'
import { callsAnsweredAt, cpuSecondsOf, freePort, root, start, writeLoop } from './system.mjs'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const total = Number(process.env.BENCH_OBJECTS ?? 10_000)
const dataDir = mkdtempSync(join(tmpdir(), 'content-bench-'))
const password = 'bench-admin-password'
const only = process.env.BENCH_ONLY ?? ''

/** Each service's /metrics address (from services.json), once the system is up. */
let metricsUrls = {}

const cpuSeconds = () => cpuSecondsOf(metricsUrls)

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
    await measureCreates(base, token, refs),
  ]
  console.log(`    big section: ${page.paging.total} children; filter[query]=${RARE_WORD} matches ${(await (await fetch(`${base}/objects?filter[query]=${RARE_WORD}`)).json()).paging.total}`)
  return runs.filter((x) => x.non2xx > 0 || x.errors > 0).map((x) => x.name)
}

/** (s7): creates of documents shaped like the store's (BENCH_ONLY=writes runs it alone). */
async function measureCreates (base, token, refs) {
  let n = 0
  const create = {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    // a title of its own per create (equal titles would make each nickname probe past the ones before),
    // and a description and body like the store's documents: the text index takes every word of them
    setupRequest: (request) => {
      const title = `Created by the bench ${Date.now()} ${++n}`
      const data = { object_type: 'document', title, description: `Description of ${title}`, body: `<p>Body of ${title}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`, parents: [refs.u3] }
      return { ...request, body: JSON.stringify({ data }) }
    },
  }
  const before = await callsAnsweredAt(metricsUrls.objects, ['CallBatch', 'SaveObject'])
  const figure = await measure('(s7) POST /objects (create)', `${base}/objects`, {}, undefined, { requests: [create] })
  const after = await callsAnsweredAt(metricsUrls.objects, ['CallBatch', 'SaveObject'])
  // a save alone in its gateway turn is its own SaveObject call; the others reach the objects service in batches (COALESCE_WRITES)
  const saves = after.SaveObject - before.SaveObject
  const batches = after.CallBatch - before.CallBatch
  console.log(`${' '.repeat(46)}the objects service answered ${saves} saves in ${batches} batches and ${saves - (after.batched - before.batched)} calls of their own`)
  return figure
}

// BENCH_STORE=postgres: the system on PostgreSQL, in a database of its own made on the machine's server
// (TEST_POSTGRES_URL names another) and dropped at the end; SQLite otherwise
const database = process.env.BENCH_STORE === 'postgres' ? await (await import('@content/platform/testing')).createTestDatabase('bench') : null
const storeEnv = database === null ? {} : { STORE: 'postgres', DATABASE_URL: database.url }
const system = start('scripts/start.mjs', { DATA_DIR: dataDir, PORT: String(await freePort()), SEED_DEMO: 'false', ADMIN_PASSWORD: password, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', ...storeEnv })
let ceiling
let floorBackend
let floor
try {
  const base = await system.ready
  console.log(`system ready at ${base}; loading ${total} objects …`)
  const fixturesFile = join(dataDir, 'bench-fixtures.json')
  const { seedFile } = await import('@content/admin')
  const services = (await import(join(dataDir, 'services.json'), { with: { type: 'json' } })).default
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
  const childrenUrl = `${base}/objects/big/children?page_size=20`
  const login = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })
  const token = (await login.json()).data.access_token
  const sample = await (await fetch(objectUrl)).text()

  console.log(`\n${connections} connections, ${duration} s each, store ${database === null ? 'sqlite' : 'postgres'}, read cache ${process.env.READ_CACHE ?? 'true'}, node ${process.version} (every service runs on it)`)
  const failures = []
  if (only === 'writes') {
    const run = await measureCreates(base, token, refs)
    if (run.non2xx > 0 || run.errors > 0) failures.push(run.name)
  }
  if (only === 'scale') {
    failures.push(...await measureScale(base, token, refs))
    console.log('\nquery plans (loadtest/autocannon/query-plans.mjs):')
    spawnSync(process.execPath, [join(root, 'loadtest/autocannon/query-plans.mjs'), join(dataDir, 'objects.sqlite')], { stdio: 'inherit' })
  }
  if (only !== 'media' && only !== 'scale' && only !== 'writes') {
    ceiling = start('loadtest/autocannon/ceiling.mjs', { CEILING_BODY: sample })
    const ceilingPort = await ceiling.ready
    const d = await measure('(d) ceiling: bare fastify, same bytes', `http://127.0.0.1:${ceilingPort}/objects/1`, {}, undefined, fresh)
    floorBackend = start('loadtest/autocannon/call-floor-backend.mjs', { FLOOR_BODY: sample })
    floor = start('loadtest/autocannon/ceiling.mjs', { CEILING_BACKEND: await floorBackend.ready })
    const d2 = await measure('(d2) floor: (d) + one gRPC call, no work', `http://127.0.0.1:${await floor.ready}/objects/1`, {}, undefined, fresh)
    floor.child.kill('SIGTERM')
    floor = start('loadtest/autocannon/ceiling.mjs', { CEILING_BACKEND: await floorBackend.ready, CEILING_COALESCE: '1' })
    const d3 = await measure('(d3) coalescing floor: (d2), a turn\'s requests share one call', `http://127.0.0.1:${await floor.ready}/objects/1`, {}, undefined, fresh)
    floor.child.kill('SIGTERM')
    floorBackend.child.kill('SIGTERM')
    const a = await measure('(a) GET /objects/{id}', objectUrl, {}, undefined, fresh)
    const b = await measure('(b) GET /objects/{section}/children?page_size=20', childrenUrl)
    const c = await measure('(c) GET /objects/{id} with a bearer token', objectUrl, { authorization: `Bearer ${token}` })
    const spread = Array.from({ length: 1_000 }, (_, i) => `/objects/${refs[`d${i * 7}`]}`)
    const e = await measure('(e) GET /objects/{id}, 1,000 ids at random', objectUrl, {}, spread)
    const perSecond = Number(process.env.BENCH_WRITES_PER_S ?? 20)
    // every change of the run is also delivered to a webhook receiver on loopback
    const receiver = await webhookReceiver()
    const added = spawnSync(process.execPath, ['services/admin/dist/main.js', 'webhooks', 'add', receiver.url, '--events', '*', '--json'], {
      cwd: root, encoding: 'utf8', env: { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD: password },
    })
    if (added.status !== 0) throw new Error(`webhooks add failed: ${added.stderr}`)
    const writes = writeLoop(base, token, refs.s9, perSecond)
    const f = await measure(`(f) (a) while ${perSecond} creates/s run beside it`, objectUrl).finally(() => writes.stop())
    await new Promise((res) => setTimeout(res, 1_000)) // the last deliveries
    await receiver.close()
    const lags = [...receiver.lags].sort((x, y) => x - y)
    console.log(`    creates answered 201: ${writes.counts.ok}, otherwise: ${writes.counts.failed}`)
    console.log(`    webhooks: ${lags.length} deliveries (${(lags.length / (duration + 2)).toFixed(1)}/s; each create is 2 events), commit → delivery p50 ${pct(lags, 0.5)} ms, p99 ${pct(lags, 0.99)} ms`)
    // the targets differ with the read cache: without it every read is a backend call
    const cached = !['false', '0'].includes(process.env.READ_CACHE ?? 'true')
    const targets = cached ? { a: 0.55, b: 0.30 } : { a: 0.25, b: 0.10 }
    console.log(`\nratios: (a)/(d) = ${(a.rps / d.rps).toFixed(2)} (target ≥ ${targets.a})   (b)/(d) = ${(b.rps / d.rps).toFixed(2)} (target ≥ ${targets.b})   (c)/(d) = ${(c.rps / d.rps).toFixed(2)}   (e)/(d) = ${(e.rps / d.rps).toFixed(2)}` +
      (cached ? '' : `   p99 (a) ${a.p99} ms, (b) ${b.p99} ms (target ≤ 30)`))
    console.log(`        (d2)/(d) = ${(d2.rps / d.rps).toFixed(2)}, the most a gateway making one backend call per request reaches here: (a)/(d2) = ${(a.rps / d2.rps).toFixed(2)}   (b)/(d2) = ${(b.rps / d2.rps).toFixed(2)}`)
    console.log(`        (d3)/(d) = ${(d3.rps / d.rps).toFixed(2)}, the most a gateway whose requests of one turn share a backend call reaches here: (a)/(d3) = ${(a.rps / d3.rps).toFixed(2)}   (b)/(d3) = ${(b.rps / d3.rps).toFixed(2)}`)
    console.log(`        (f)/(a) = ${(f.rps / a.rps).toFixed(2)} (target ≥ 0.8)   (f)/(d) = ${(f.rps / d.rps).toFixed(2)}${cached ? ' (target ≥ 0.45)' : ''}   (f) p99 ${f.p99} ms (target ≤ 20)`)
    failures.push(...[a, b, c, d, d2, d3, e, f].filter((x) => x.non2xx > 0 || x.errors > 0).map((x) => x.name))
    if (writes.counts.failed > 0) failures.push('(f) creates')
  }
  if (only === '' || only === 'media') {
    const media = await measureMedia({
      base, token, parent: refs.s1, posterAddress: services.poster, dataDir, measure,
      startCeiling: (env) => start('loadtest/autocannon/ceiling.mjs', env),
    })
    if (media.failed) failures.push('media')
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
