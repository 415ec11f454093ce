import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkHealth } from '@content/platform'
import { ADMIN, freePort, ROOT } from './system.js'
import { checkAnswersOf } from './contract-fetch.js'

type Name = 'objects' | 'auth' | 'poster' | 'gateway'

export interface Services {
  base: string
  dataDir: string
  objectsAddr: string
  /** pid of the running objects process */
  objectsPid: () => number
  /** SIGKILL to the objects process; resolves once it is gone */
  killObjects: () => Promise<void>
  /** starts the objects process again on the same DATA_DIR and port; resolves once it is healthy */
  startObjects: () => Promise<void>
  output: () => string
  stop: () => Promise<void>
}

async function waitFor (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`)
}

/**
 * The four services started one by one as scripts/start.mjs starts them (same env conventions), but
 * without the launcher's stop-everything-when-a-child-dies rule, so a test can kill and restart one.
 */
export async function startServices (env: Record<string, string> = {}): Promise<Services> {
  const dataDir = mkdtempSync(join(tmpdir(), 'content-durability-'))
  const ports = { objects: await freePort(), auth: await freePort(), poster: await freePort(), gateway: await freePort() }
  const addr = (name: 'objects' | 'auth' | 'poster') => `127.0.0.1:${ports[name]}`
  const common = {
    ...process.env, DATA_DIR: dataDir, JWT_SECRET: 'durability-test-secret-of-at-least-32-bytes', ADMIN_PASSWORD: ADMIN.password,
    MEDIA_SIGNING_KEY: 'durability-test-media-signing-key-0123456789',
    LOG_LEVEL: 'warn', ...env,
  }
  const children = new Map<Name, ChildProcess>()
  let out = ''
  const launch = (name: Name, extra: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', '@content/platform/telemetry', join(ROOT, 'services', name, 'dist/main.js')], {
      cwd: ROOT, env: { ...common, OTEL_SERVICE_NAME: `content-${name}`, ...extra }, stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout!.on('data', (c) => { out += String(c) })
    child.stderr!.on('data', (c) => { out += String(c) })
    children.set(name, child)
    return child
  }
  const backend = (name: 'objects' | 'auth' | 'poster') => ({ GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports[name]) })
  const startObjects = async () => {
    launch('objects', backend('objects'))
    await waitFor('objects', () => checkHealth(addr('objects'), 500))
  }

  await startObjects()
  launch('auth', backend('auth'))
  launch('poster', { ...backend('poster'), OBJECTS_SERVICE_ADDR: addr('objects') })
  for (const name of ['auth', 'poster'] as const) await waitFor(name, () => checkHealth(addr(name), 500))
  launch('gateway', {
    PORT: String(ports.gateway), HOST: '127.0.0.1',
    OBJECTS_SERVICE_ADDR: addr('objects'), AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster'),
  })
  const base = `http://127.0.0.1:${ports.gateway}`
  await waitFor('gateway', async () => (await fetch(`${base}/readyz`)).ok)
  checkAnswersOf(base)

  const exit = (child: ChildProcess) => new Promise<void>((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res()
    else child.once('exit', () => res())
  })
  return {
    base,
    dataDir,
    objectsAddr: addr('objects'),
    objectsPid: () => children.get('objects')!.pid!,
    async killObjects () {
      const child = children.get('objects')!
      child.kill('SIGKILL')
      await exit(child)
    },
    startObjects,
    output: () => out,
    async stop () {
      for (const name of ['gateway', 'poster', 'objects', 'auth'] as const) {
        const child = children.get(name)
        if (!child) continue
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 9_000)
        await exit(child)
        clearTimeout(timer)
      }
    },
  }
}
