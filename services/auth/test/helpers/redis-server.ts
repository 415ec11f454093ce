import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { Redis } from 'ioredis'
import { must } from './must.js'

/** A port nobody listens on right now. */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface RedisServer {
  port: number
  url: string
  process: ChildProcess
  /** SIGKILL (a crash) or SIGTERM, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * A real redis-server of the test's own on a free port: `--save ''` and no AOF unless `args` say
 * otherwise. Resolves once it answers PING.
 */
export async function startRedisServer (args: string[] = ['--appendonly', 'no'], port?: number): Promise<RedisServer> {
  const p = port ?? await freePort()
  const child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--daemonize', 'no', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  must(child.stdout).on('data', (d) => { output += String(d) })
  must(child.stderr).on('data', (d) => { output += String(d) })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`)
    const probe = new Redis(p, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    probe.on('error', () => undefined)
    const ok = await probe.connect().then(() => probe.ping()).then(() => true, () => false)
    probe.disconnect()
    if (ok) break
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`redis-server did not start: ${output}`) }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    port: p,
    url: `redis://127.0.0.1:${p}`,
    process: child,
    async stop (signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}
