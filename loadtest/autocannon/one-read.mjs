#!/usr/bin/env node
// One read figure of `bench.mjs`, alone: starts the system as `npm start` does on the bench's store of
// 10,000 objects, then measures one read ONE_READ rounds times (2 s of warm-up, then ONE_READ_DURATION s)
// with the CPU each service spent per request. For comparing two builds of a service side by side
// (swap its `dist` between runs) without the rest of the bench's figures in between.
//
// Env: ONE_READ (a: a single object, b: the page of 20, e: 1,000 objects at random; default a),
// ONE_READ_ROUNDS (2), ONE_READ_DURATION (s, 5), ONE_READ_WRITES (creates/s beside the reads, 0), and any
// system setting (READ_CACHE=false, CPU_PROF_DIR, …).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { benchFixtures } from './fixtures.mjs'

const root = new URL('../..', import.meta.url).pathname
const which = process.env.ONE_READ ?? 'a'
const rounds = Number(process.env.ONE_READ_ROUNDS ?? 2)
const duration = Number(process.env.ONE_READ_DURATION ?? 5)
const writesPerS = Number(process.env.ONE_READ_WRITES ?? 0)
const dataDir = mkdtempSync(join(tmpdir(), 'content-one-read-'))
const password = 'bench-admin-password'

const port = await new Promise((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)) })
})
const system = spawn(process.execPath, ['scripts/start.mjs'], {
  cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), SEED_DEMO: 'false', ADMIN_PASSWORD: password, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'],
})
let out = ''
const base = await new Promise((resolve, reject) => {
  system.stdout.on('data', (chunk) => {
    out += chunk
    const m = /ready at (\S+?)\/?\s*$/m.exec(out)
    if (m) resolve(m[1])
  })
  system.once('exit', (code) => reject(new Error(`the system exited with ${code}\n${out}`)))
})

try {
  const services = JSON.parse(readFileSync(join(dataDir, 'services.json'), 'utf8'))
  const { seedFile } = await import('@content/admin')
  const fixtures = join(dataDir, 'bench-fixtures.json')
  writeFileSync(fixtures, JSON.stringify(benchFixtures({ total: 10_000 })))
  const refs = await seedFile(fixtures, services, { serviceSecret: readFileSync(join(dataDir, 'service-secret'), 'utf8'), username: 'admin', password })
  const cpuSeconds = async () => Object.fromEntries(await Promise.all(Object.entries(services.metrics).map(async ([service, url]) =>
    [service, Number(/^process_cpu_seconds_total (\S+)$/m.exec(await (await fetch(url)).text())?.[1] ?? NaN)])))

  const spread = Array.from({ length: 1_000 }, (_, i) => `/objects/${refs[`d${i * 7}`]}`)
  const options = {
    url: which === 'b' ? `${base}/objects/big/children?page_size=20` : `${base}/objects/${refs.d1234}`,
    connections: 50,
    ...(which === 'e' ? { requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: spread[Math.floor(Math.random() * spread.length)] }) }] } : {}),
  }
  let writer
  const failedWrites = []
  if (writesPerS > 0) {
    const login = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) })
    const token = (await login.json()).data.access_token
    writer = setInterval(() => {
      fetch(`${base}/objects`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { object_type: 'document', title: 'written beside the reads', parents: [refs.s9] } }),
      }).then((res) => { if (res.status !== 201) failedWrites.push(res.status) }, (err) => failedWrites.push(String(err)))
    }, 1000 / writesPerS)
  }
  for (let round = 0; round < rounds; round++) {
    await autocannon({ ...options, duration: 2 })
    const before = await cpuSeconds()
    const r = await autocannon({ ...options, duration })
    const after = await cpuSeconds()
    const perRequest = (s) => (((after[s] - before[s]) * 1000) / r.requests.total).toFixed(3)
    console.log(`(${which}) ${Math.round(r.requests.average)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}   cpu ms/req: gateway ${perRequest('gateway')}, objects ${perRequest('objects')}`)
  }
  clearInterval(writer)
  if (failedWrites.length > 0) console.log(`creates not answered 201: ${failedWrites.length} (${failedWrites.slice(0, 5).join(', ')})`)
} finally {
  system.kill('SIGTERM')
  await new Promise((resolve) => system.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
