import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { must } from './must.js'

export interface RedisProcess {
  port: number
  url: string
  output: () => string
  stop: () => Promise<void>
}

function ping (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const done = (ok: boolean) => { socket.destroy(); resolve(ok) }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (d) => done(String(d).startsWith('+PONG')))
  })
}

/**
 * A durable redis-server of the test's own (append-only file fsynced on every write, in `dir`),
 * on `port`; resolves once it answers PING. Stopped with SIGTERM (a clean shutdown keeps the AOF).
 * With `configFile`, that file's settings instead of the durable ones (only port, address and dir added).
 */
export async function startRedis (port: number, dir: string, configFile?: string): Promise<RedisProcess> {
  const place = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no']
  const durable = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction']
  const child = spawn('redis-server', configFile ? [configFile, ...place] : [...place, ...durable], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  must(child.stdout).on('data', (d) => { out += String(d) })
  must(child.stderr).on('data', (d) => { out += String(d) })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + 10_000
  while (!(await ping(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`redis-server did not start:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    output: () => out,
    async stop () {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
