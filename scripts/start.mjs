#!/usr/bin/env node
// `npm start`: runs the four services as separate processes on loopback, on the embedded default
// store (SQLite under DATA_DIR), and stops them all gracefully on Ctrl-C or SIGTERM.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const env = { ...process.env }
const dataDir = resolve(env.DATA_DIR || 'data')
const port = Number(env.PORT || 8080)
const host = env.HOST || '127.0.0.1'
const STOP_TIMEOUT_MS = 9_000

mkdirSync(dataDir, { recursive: true })
const freshStore = !existsSync(join(dataDir, 'objects.sqlite'))

/** A secret from the environment, else generated once and kept in DATA_DIR (mode 0600). */
function secret (variable, fileName) {
  if (env[variable]) return env[variable]
  const file = join(dataDir, fileName)
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 })
  return readFileSync(file, 'utf8').trim()
}

function freePort () {
  return new Promise((res, rej) => {
    const srv = createServer().once('error', rej)
    srv.listen(0, '127.0.0.1', () => { const { port: p } = srv.address(); srv.close(() => res(p)) })
  })
}

const children = new Map()
let stopping = false

function launch (name, extraEnv) {
  const child = spawn(process.execPath, ['--import', '@content/platform/telemetry', join(root, 'services', name, 'dist/main.js')], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, JWT_SECRET: jwtSecret, OTEL_SERVICE_NAME: `content-${name}`, ...extraEnv },
    stdio: 'inherit',
  })
  children.set(name, child)
  child.on('exit', (code, signal) => {
    children.delete(name)
    if (!stopping) {
      console.error(`${name} exited unexpectedly (${signal ?? code}); stopping everything`)
      stop(1)
    }
  })
  return child
}

async function waitFor (what, check, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (stopping) return
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`)
}

async function stop (code) {
  if (stopping) return
  stopping = true
  // Gateway first (no new requests), then the backends.
  const order = ['gateway', 'poster', 'objects', 'auth'].map((n) => children.get(n)).filter(Boolean)
  const exited = order.map((c) => new Promise((r) => c.exitCode !== null || c.signalCode ? r() : c.once('exit', r)))
  for (const child of order) child.kill('SIGTERM')
  const timer = setTimeout(() => { for (const c of children.values()) c.kill('SIGKILL') }, STOP_TIMEOUT_MS)
  await Promise.all(exited)
  clearTimeout(timer)
  process.exit(code)
}

process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

const jwtSecret = secret('JWT_SECRET', 'jwt-secret')
const mediaSigningKey = secret('MEDIA_SIGNING_KEY', 'media-signing-key')
const { checkHealth } = await import('@content/platform')
const ports = { objects: await freePort(), auth: await freePort(), poster: await freePort() }
const addr = (name) => `127.0.0.1:${ports[name]}`
const backendEnv = (name) => ({ GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports[name]) })

try {
  launch('objects', backendEnv('objects'))
  launch('auth', backendEnv('auth'))
  launch('poster', { ...backendEnv('poster'), OBJECTS_SERVICE_ADDR: addr('objects'), MEDIA_SIGNING_KEY: mediaSigningKey })
  for (const name of ['objects', 'auth', 'poster']) await waitFor(name, () => checkHealth(addr(name), 500))

  launch('gateway', {
    PORT: String(port), HOST: host,
    OBJECTS_SERVICE_ADDR: addr('objects'), AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster'),
  })
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  await waitFor('gateway', async () => (await fetch(`${base}/readyz`)).ok)

  // The admin tool finds the services through this file.
  writeFileSync(join(dataDir, 'services.json'), JSON.stringify({
    objects: addr('objects'), auth: addr('auth'), poster: addr('poster'), gateway: base,
  }, null, 2) + '\n')

  if (freshStore && env.SEED_DEMO !== 'false' && !stopping) {
    const { seedFile } = await import('@content/admin')
    const refs = await seedFile(join(root, 'scripts', 'demo-fixtures.json'), { objects: addr('objects'), auth: addr('auth'), poster: addr('poster') })
    console.log(`demo publication loaded (${Object.keys(refs).length} objects)`)
  }
  if (!stopping) console.log(`content objects API ready at ${base}/`)
} catch (err) {
  console.error(err instanceof Error ? err.message : err)
  await stop(1)
}
