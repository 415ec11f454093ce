import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkHealth } from '@content/platform'
import { ADMIN, freePort, ROOT } from './system.js'
import { checkAnswersOf } from './contract-fetch.js'
import { must } from './must.js'
import { systemStore } from './system-store.js'

type Name = 'objects' | 'auth' | 'poster' | 'gateway'

export interface Services {
  base: string
  /** every gateway's address (base is the first); all follow the same backends */
  bases: string[]
  dataDir: string
  /** the PostgreSQL database every service runs on (SYSTEM_STORE=postgres, or a test's own DATABASE_URL); undefined: SQLite under dataDir */
  databaseUrl: string | undefined
  /** the gateway's OBJECTS_SERVICE_ADDR: one address, or `ipv4:a,b` for several replicas */
  objectsAddr: string
  authAddr: string
  posterAddr: string
  /** pid of the running objects process `replica` */
  objectsPid: (replica?: number) => number
  /** SIGKILL to objects process `replica`; resolves once it is gone */
  killObjects: (replica?: number) => Promise<void>
  /** starts objects process `replica` again on the same DATA_DIR and port; resolves once it is healthy */
  startObjects: (replica?: number) => Promise<void>
  output: () => string
  /** SIGKILL to the poster process; resolves once it is gone */
  killPoster: () => Promise<void>
  /** what objects process `replica` has written so far */
  objectsOutput: (replica?: number) => string
  stop: () => Promise<void>
}

export interface ServicesOptions {
  /** objects processes on one DATA_DIR behind the gateway's single address (round_robin), default 1 */
  objectsReplicas?: number
  /** gateway processes on the same backends, default 1 */
  gateways?: number
  /** settings of one service only, over the shared ones (e.g. auth on PostgreSQL beside objects on SQLite) */
  serviceEnv?: Partial<Record<Name, Record<string, string>>>
  /** settings of gateway process `index` only, over serviceEnv's (e.g. a METRICS_PORT each) */
  gatewayEnv?: (index: number) => Record<string, string>
  /** settings of objects process `replica` only, over serviceEnv's */
  objectsEnv?: (replica: number) => Record<string, string>
}

// two cores shared by many starting processes: a service may take longer than npm start's 30 s to be ready
async function waitFor (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
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
export async function startServices (chosen: Record<string, string> = {}, options: ServicesOptions = {}): Promise<Services> {
  const { env, drop } = await systemStore(chosen)
  const dataDir = mkdtempSync(join(tmpdir(), 'content-durability-'))
  const replicas = options.objectsReplicas ?? 1
  const objectsPorts: number[] = []
  for (let i = 0; i < replicas; i++) objectsPorts.push(await freePort())
  const ports = { auth: await freePort(), poster: await freePort() }
  const gatewayPorts: number[] = []
  for (let i = 0; i < (options.gateways ?? 1); i++) gatewayPorts.push(await freePort())
  const addr = (name: 'auth' | 'poster') => `127.0.0.1:${ports[name]}`
  const replicaAddr = (replica: number) => `127.0.0.1:${objectsPorts[replica]}`
  // grpc-js resolves `ipv4:a,b` to both addresses, as DNS resolves a headless Service to its pods
  const objectsAddr = replicas === 1 ? replicaAddr(0) : `ipv4:${objectsPorts.map((_, i) => replicaAddr(i)).join(',')}`
  const common = {
    ...process.env, DATA_DIR: dataDir, JWT_SECRET: 'durability-test-secret-of-at-least-32-bytes', ADMIN_PASSWORD: ADMIN.password,
    SERVICE_SECRET: 'durability-test-service-secret-0123456789',
    MEDIA_SIGNING_KEY: 'durability-test-media-signing-key-0123456789',
    LOG_LEVEL: 'warn', ...env,
  }
  // where the admin tool finds it, as with npm start
  writeFileSync(join(dataDir, 'service-secret'), common.SERVICE_SECRET)
  const children = new Map<string, ChildProcess>()
  const outputs = new Map<string, string>()
  let out = ''
  const launch = (name: Name, extra: Record<string, string>, key: string = name) => {
    const child = spawn(process.execPath, ['--import', '@content/platform/telemetry', join(ROOT, 'services', name, 'dist/main.js')], {
      cwd: ROOT, env: { ...common, OTEL_SERVICE_NAME: `content-${name}`, ...options.serviceEnv?.[name], ...extra }, stdio: ['ignore', 'pipe', 'pipe'],
    })
    const record = (c: unknown) => {
      out += String(c)
      outputs.set(key, (outputs.get(key) ?? '') + String(c))
    }
    must(child.stdout).on('data', record)
    must(child.stderr).on('data', record)
    children.set(key, child)
    return child
  }
  const backend = (port: number) => ({ GRPC_HOST: '127.0.0.1', GRPC_PORT: String(port) })
  const objectsKey = (replica: number) => `objects#${replica}`
  const startObjects = async (replica = 0) => {
    launch('objects', { ...backend(must(objectsPorts[replica])), ...options.objectsEnv?.(replica) }, objectsKey(replica))
    await waitFor('objects', () => checkHealth(replicaAddr(replica), 500))
  }

  for (let i = 0; i < replicas; i++) await startObjects(i)
  launch('auth', backend(ports.auth))
  launch('poster', { ...backend(ports.poster), OBJECTS_SERVICE_ADDR: objectsAddr })
  for (const name of ['auth', 'poster'] as const) await waitFor(name, () => checkHealth(addr(name), 500))
  const gatewayKey = (i: number) => (i === 0 ? 'gateway' : `gateway#${i}`)
  const bases = gatewayPorts.map((port) => `http://127.0.0.1:${port}`)
  for (const [i, port] of gatewayPorts.entries()) launch('gateway', {
    PORT: String(port), HOST: '127.0.0.1',
    OBJECTS_SERVICE_ADDR: objectsAddr, AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster'),
    ...options.gatewayEnv?.(i),
  }, gatewayKey(i))
  for (const b of bases) {
    await waitFor('gateway', async () => (await fetch(`${b}/readyz`)).ok)
    checkAnswersOf(b)
  }
  const base = must(bases[0])

  const exit = (child: ChildProcess) => new Promise<void>((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res()
    else child.once('exit', () => res())
  })
  return {
    base,
    bases,
    dataDir,
    databaseUrl: env.STORE === 'postgres' ? env.DATABASE_URL : undefined,
    objectsAddr,
    authAddr: addr('auth'),
    posterAddr: addr('poster'),
    objectsPid: (replica = 0) => must(must(children.get(objectsKey(replica))).pid),
    async killObjects (replica = 0) {
      const child = must(children.get(objectsKey(replica)))
      child.kill('SIGKILL')
      await exit(child)
    },
    startObjects,
    async killPoster () {
      const child = must(children.get('poster'))
      child.kill('SIGKILL')
      await exit(child)
    },
    output: () => out,
    objectsOutput: (replica = 0) => outputs.get(objectsKey(replica)) ?? '',
    async stop () {
      const order = [...gatewayPorts.map((_, i) => gatewayKey(i)), 'poster', ...objectsPorts.map((_, i) => objectsKey(i)), 'auth']
      for (const key of order) {
        const child = children.get(key)
        if (!child) continue
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 9_000)
        await exit(child)
        clearTimeout(timer)
      }
      await drop()
    },
  }
}
