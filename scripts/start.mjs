#!/usr/bin/env node
// `npm start`: runs the four services as separate processes on loopback, on the embedded default
// store (SQLite under DATA_DIR), or on PostgreSQL with STORE=postgres and DATABASE_URL. A service that crashes is restarted with backoff while the others keep
// serving; Ctrl-C or SIGTERM at any moment, start-up included, stops them all gracefully.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { banner, logFormat, relayOutput } from './launcher/output.mjs'
import { freePorts } from './launcher/ports.mjs'
import { createSupervisor } from './launcher/supervisor.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const env = { ...process.env }
const dataDir = resolve(env.DATA_DIR || 'data')
const port = Number(env.PORT || 8080)
const host = env.HOST || '127.0.0.1'
const format = logFormat(env, process.stdout)
/** Gateway first (no new requests), then the backends. */
const STOP_ORDER = ['gateway', 'poster', 'objects', 'auth']
/** CPU_PROF_DIR: each service writes a V8 CPU profile there when it stops (node --cpu-prof cannot go through NODE_OPTIONS). */
const profile = env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(env.CPU_PROF_DIR)}`] : []
/**
 * 64 MiB semi-spaces, the young generation Node 24 (the images' runtime) gives heaps of 128 MiB to 4 GiB
 * alike, also on Node 20, which gives 16 MiB: there a page of 20 objects without the read cache spent 29 %
 * of the gateway's busy time collecting garbage (18.5 % with these) and cost it a sixth more CPU
 * (loadtest/README.md, "Garbage collection on Node 20"). A semi-space size in NODE_OPTIONS is left as given.
 */
const heap = /--max[-_]semi[-_]space[-_]size/.test(env.NODE_OPTIONS ?? '') ? [] : ['--max-semi-space-size=64']
/**
 * Node 20 (V8 11.3) moves a hot function to optimized code once it has run through an interrupt budget of
 * bytecode; at the default budget the services took some 15 s of load to reach their speed, serving at
 * half of it at first. A quarter of the budget gets there within about 5 s, as Node 24's own tiering does
 * (loadtest/README.md, "JIT warm-up on Node 20"); Node 24 has no such flag.
 */
const jit = process.versions.node.startsWith('20.') ? ['--interrupt-budget=16000'] : []

/**
 * STARTUP_TIMEOUT_MS: how long each service may take to become ready before start-up gives up (30 s; a
 * loaded machine, or the test suite starting many systems at once on two cores, may need more).
 */
const startupTimeoutMs = env.STARTUP_TIMEOUT_MS ? Number(env.STARTUP_TIMEOUT_MS) : 30_000
if (!Number.isSafeInteger(startupTimeoutMs) || startupTimeoutMs <= 0) {
  console.error(`STARTUP_TIMEOUT_MS must be a positive whole number of milliseconds, not "${env.STARTUP_TIMEOUT_MS}"`)
  process.exit(1)
}

mkdirSync(dataDir, { recursive: true })
const freshStore = env.STORE === 'postgres' ? await objectsTableMissing(env) : !existsSync(join(dataDir, 'objects.sqlite'))

/** STORE=postgres: a store never opened yet has no objects table (the objects service makes it, in its schema, at its start). */
async function objectsTableMissing (settings) {
  const [{ openPostgres }, { createLogger }] = await Promise.all([import('@content/platform/postgres'), import('@content/platform')])
  const db = openPostgres({
    settings: { DATABASE_URL: settings.DATABASE_URL, PG_POOL_SIZE: 1, PG_STATEMENT_TIMEOUT_MS: 5_000, PG_ACQUIRE_TIMEOUT_MS: 5_000 },
    applicationName: 'content-launcher', log: createLogger({ service: 'launcher', level: 'silent' }),
  })
  try {
    return (await db.query("SELECT to_regclass('objects.objects') IS NULL AS missing")).rows[0]?.missing !== false
  } catch (err) {
    console.error(`the database of DATABASE_URL cannot be read: ${err.message}`)
    process.exit(1)
  } finally {
    await db.close()
  }
}

/** A secret from the environment, else generated once and kept in DATA_DIR (mode 0600). */
function secret (variable, fileName) {
  if (env[variable]) return env[variable]
  const file = join(dataDir, fileName)
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 })
  return readFileSync(file, 'utf8').trim()
}

let generatedPassword
/** name → the environment it starts with; filled before each service's first launch. */
const serviceEnv = new Map()
const supervisor = createSupervisor({
  spawn (name) {
    // JSON lines go straight to our stdout, never read again here; only lines to make pretty, and auth's
    // (which may hold the generated password, and are few), pass through the launcher
    const relayed = format === 'pretty' || name === 'auth'
    const child = spawn(process.execPath, [...heap, ...jit, ...profile, '--import', '@content/platform/telemetry', join(root, 'services', name, 'dist/main.js')], {
      cwd: root,
      env: { ...env, DATA_DIR: dataDir, OTEL_SERVICE_NAME: `content-${name}`, ...serviceEnv.get(name) },
      stdio: ['ignore', relayed ? 'pipe' : 'inherit', 'inherit'],
    })
    if (relayed) relayOutput(child.stdout, { format, out: process.stdout, onPassword: (p) => { generatedPassword = p } })
    return child
  },
  report: (line) => console.error(line),
  onFatal (name, code) {
    console.error(`${name} failed while starting (exit ${code}); stopping everything`)
    stop(1)
  },
})

let exiting
function stop (code) {
  exiting ??= supervisor.stop(STOP_ORDER).then(() => process.exit(code))
  return exiting
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

async function waitFor (what, check) {
  const until = Date.now() + startupTimeoutMs
  while (Date.now() < until) {
    if (supervisor.stopping) return
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} did not become ready within ${startupTimeoutMs / 1000} s`)
}

try {
  const jwtSecret = secret('JWT_SECRET', 'jwt-secret')
  // signs every call between the services; the admin tool reads it from the same file
  const serviceSecret = secret('SERVICE_SECRET', 'service-secret')
  // a fresh store's administrator password, made here so the demo seed can log in with it
  const adminPassword = env.ADMIN_PASSWORD || (freshStore ? randomBytes(18).toString('base64url') : undefined)
  const mediaSigningKey = secret('MEDIA_SIGNING_KEY', 'media-signing-key')
  const { checkHealth } = await import('@content/platform')
  const [objectsPort, authPort, posterPort, ...metricsList] = await freePorts(3 + STOP_ORDER.length)
  const ports = { objects: objectsPort, auth: authPort, poster: posterPort }
  const metricsPorts = Object.fromEntries(STOP_ORDER.map((name, i) => [name, metricsList[i]]))
  const addr = (name) => `127.0.0.1:${ports[name]}`
  const common = (name) => ({ JWT_SECRET: jwtSecret, SERVICE_SECRET: serviceSecret, METRICS_HOST: '127.0.0.1', METRICS_PORT: String(metricsPorts[name]) })
  const backend = (name) => ({ ...common(name), GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports[name]) })
  serviceEnv.set('objects', backend('objects'))
  serviceEnv.set('auth', { ...backend('auth'), ...(adminPassword ? { ADMIN_PASSWORD: adminPassword } : {}) })
  serviceEnv.set('poster', { ...backend('poster'), OBJECTS_SERVICE_ADDR: addr('objects'), MEDIA_SIGNING_KEY: mediaSigningKey })
  serviceEnv.set('gateway', {
    ...common('gateway'), PORT: String(port), HOST: host,
    OBJECTS_SERVICE_ADDR: addr('objects'), AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster'),
  })

  for (const name of ['objects', 'auth', 'poster']) supervisor.launch(name)
  for (const name of ['objects', 'auth', 'poster']) {
    await waitFor(name, () => checkHealth(addr(name), 500))
    supervisor.ready(name)
  }
  supervisor.launch('gateway')
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  await waitFor('gateway', async () => (await fetch(`${base}/readyz`)).ok)
  supervisor.ready('gateway')

  // The admin tool finds the services through this file.
  const metrics = Object.fromEntries(STOP_ORDER.map((name) => [name, `http://127.0.0.1:${metricsPorts[name]}/metrics`]))
  const services = { objects: addr('objects'), auth: addr('auth'), poster: addr('poster'), gateway: base, metrics }
  writeFileSync(join(dataDir, 'services.json'), `${JSON.stringify(services, null, 2)}\n`)

  if (freshStore && env.SEED_DEMO !== 'false' && !supervisor.stopping) {
    const { seedFile } = await import('@content/admin')
    const refs = await seedFile(join(root, 'scripts', 'demo-fixtures.json'), { objects: addr('objects'), auth: addr('auth'), poster: addr('poster') },
      { serviceSecret, username: env.ADMIN_USERNAME || 'admin', password: adminPassword })
    console.log(`demo publication loaded (${Object.keys(refs).length} objects)`)
  }
  const shownPassword = env.ADMIN_PASSWORD ? undefined : freshStore ? adminPassword : generatedPassword
  if (!supervisor.stopping) process.stdout.write(banner({ base, password: shownPassword, metrics }))
} catch (err) {
  if (!supervisor.stopping) {
    console.error(err instanceof Error ? err.message : err)
    await stop(1)
  }
}

