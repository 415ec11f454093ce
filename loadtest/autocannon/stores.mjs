#!/usr/bin/env node
// Auth and poster on PostgreSQL beside SQLite and local files, in one run:
//   npx turbo run build --output-logs=errors-only && node loadtest/autocannon/stores.mjs
// Starts two systems as npm start does — the embedded default (SQLite, media under DATA_DIR) and
// ACCOUNTS_STORE=postgres MEDIA_STORE=postgres on a database of its own on the machine's PostgreSQL
// (TEST_POSTGRES_URL) — and measures each, alternating, BENCH_ROUNDS times (2) for BENCH_DURATION s (10)
// at BENCH_CONNECTIONS (10; uploads at most 8): login (POST /auth, argon2id included), refresh (every request a distinct live
// token, rotated), upload (POST /files, every request distinct ~40 KB JPEG bytes), download (GET /media
// of 50 distinct ~300 KB files at random) and a stored thumbnail (GET /thumbnails of 50 distinct images,
// the gateway's thumbnail cache off, so each read comes from the poster's store).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import sharp from 'sharp'
import { createTestDatabase } from '@content/platform/testing'
import { freePort, start } from './system.mjs'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const password = 'stores-bench-admin-password'

/** A photograph-like JPEG, different per seed. */
function jpeg (seed, width, height) {
  const pixels = Buffer.alloc(width * height * 3)
  let state = (seed * 2654435761) >>> 0
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0
    pixels[i] = ((i % (width * 3)) / 3 + (state >>> 28) + seed) & 0xff
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer()
}

async function json (base, method, path, body, token) {
  const res = await fetch(`${base}${path}`, {
    method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()).data
}

/** A system as npm start runs it, with its media and a pool of live refresh tokens to measure on. */
async function system (name, env) {
  const dataDir = mkdtempSync(join(tmpdir(), `stores-bench-${name.replace('/', '-')}-`))
  const port = await freePort()
  const { child, ready } = start('scripts/start.mjs', {
    DATA_DIR: dataDir, PORT: String(port), ADMIN_PASSWORD: password, SEED_DEMO: 'false', LOG_LEVEL: 'warn', THUMBNAIL_CACHE_BYTES: '0', ...env,
  })
  const base = (await ready).replace(/\/$/, '')
  const login = () => json(base, 'POST', '/auth', { username: 'admin', password })
  const { access_token: token } = await login()
  const files = []
  for (let i = 0; i < 50; i++) {
    const bytes = await jpeg(1_000 + i, 480, 320)
    const up = await fetch(`${base}/files/image/f${i}.jpg`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/jpeg' }, body: bytes })
    const created = await json(base, 'POST', '/objects', { data: { object_type: 'image', title: `f${i}`, parents: [1], upload_token: (await up.json()).data.upload_token } }, token)
    const poster = await json(base, 'GET', `/poster/${created.object.id}?width=160`)
    const thumbnail = new URL(poster.uri)
    await fetch(thumbnail) // rendered once, kept in the store
    files.push({ media: `/media/${created.object.id}/f${i}.jpg`, thumbnail: thumbnail.pathname + thumbnail.search })
  }
  const refreshTokens = []
  return {
    name, base, token, files, refreshTokens,
    /** Live refresh tokens, three per connection: a run's requests still in flight when it ends lose theirs. */
    async topUpTokens () {
      while (refreshTokens.length < connections * 3) refreshTokens.push((await login()).refresh_token)
    },
    async stop () {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

async function run (options) {
  await autocannon({ ...options, duration: 3 })
  const r = await autocannon({ ...options, duration })
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }
}

let seed = 0
const uploads = []
async function fillUploads (count) {
  while (uploads.length < count) uploads.push(await jpeg(100_000 + seed++, 160, 120))
}

const SCENARIOS = {
  login: (s) => run({
    url: s.base, connections,
    requests: [{ method: 'POST', path: '/auth', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) }],
  }),
  refresh: async (s) => {
    await s.topUpTokens()
    return run({
      url: s.base, connections,
      requests: [{
        method: 'POST', path: '/auth', headers: { 'content-type': 'application/json' },
        // each request a live token of the pool; its successor goes back to it
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: s.refreshTokens.shift() }) }),
        onResponse: (status, body) => { if (status === 200) s.refreshTokens.push(JSON.parse(body).data.refresh_token) },
      }],
    })
  },
  upload: async (s) => {
    await fillUploads(4_000)
    return run({
      // no more at once than the poster service stages (UPLOAD_CONCURRENCY, 8): more would be answered 503 UPLOAD_BUSY
      url: s.base, connections: Math.min(connections, 8),
      requests: [{
        method: 'POST', path: '/files/image/u.jpg', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'image/jpeg' },
        // distinct bytes every request, never used before on this system: each is stored, never found present
        setupRequest: (req) => ({ ...req, body: uploads.pop() ?? Buffer.alloc(0) }),
      }],
    })
  },
  download: (s) => run({
    url: s.base, connections,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: s.files[Math.floor(Math.random() * s.files.length)].media }) }],
  }),
  thumbnail: (s) => run({
    url: s.base, connections,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: s.files[Math.floor(Math.random() * s.files.length)].thumbnail }) }],
  }),
}

const database = await createTestDatabase('stores_bench')
const systems = []
try {
  systems.push(await system('sqlite/local', {}))
  systems.push(await system('postgres', { ACCOUNTS_STORE: 'postgres', MEDIA_STORE: 'postgres', DATABASE_URL: database.url }))
  const figures = []
  for (let round = 1; round <= rounds; round++) {
    for (const [scenario, measure] of Object.entries(SCENARIOS)) {
      for (const s of systems) {
        const figure = { round, scenario, store: s.name, ...(await measure(s)) }
        figures.push(figure)
        console.log(JSON.stringify(figure))
      }
    }
  }
  const heads = Array.from({ length: rounds }, (_, i) => `round ${i + 1} req/s (p50/p99 ms)`.padEnd(30)).join(' ')
  console.log(`\nscenario   store          ${heads}`)
  for (const scenario of Object.keys(SCENARIOS)) {
    for (const s of systems) {
      const cells = figures.filter((f) => f.scenario === scenario && f.store === s.name).map((f) => `${f.rps.toFixed(0)} (${f.p50}/${f.p99})${f.non2xx ? ` ${f.non2xx} non-2xx` : ''}`.padEnd(30))
      console.log(`${scenario.padEnd(10)} ${s.name.padEnd(14)} ${cells.join(' ')}`)
    }
    const ratio = (round) => {
      const [a, b] = systems.map((s) => figures.find((f) => f.scenario === scenario && f.store === s.name && f.round === round)?.rps ?? NaN)
      return (b / a).toFixed(2)
    }
    console.log(`${''.padEnd(10)} ${'postgres/sqlite'.padEnd(14)} ${Array.from({ length: rounds }, (_, i) => ratio(i + 1).padEnd(30)).join(' ')}`)
  }
} finally {
  for (const s of systems) await s.stop()
  await database.drop()
}
