import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** A PostgreSQL server of a test's own, in a temporary directory on a free port, to stop and restart at will. */
export interface PostgresCluster {
  port: number
  /** a libpq URL of its `postgres` database (trust authentication) */
  url: string
  /** the server's log so far */
  log(): Promise<string>
  start(): Promise<void>
  /** `fast` ends sessions and checkpoints (a restart's shutdown); `immediate` is as a crash */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  restart(): Promise<void>
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>
}

/** The newest PostgreSQL binaries Debian installed (`/usr/lib/postgresql/<n>/bin`), or PG_BIN. */
function binaries (): string {
  if (process.env.PG_BIN) return process.env.PG_BIN
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : []
  if (versions[0] === undefined) throw new Error(`no PostgreSQL binaries under ${root}: install postgresql, or set PG_BIN`)
  return join(root, versions[0], 'bin')
}

export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/**
 * Starts a PostgreSQL cluster of its own (`initdb` + `pg_ctl`) in a temporary directory on a free port of
 * 127.0.0.1, for tests that stop or restart the database under load. The machine's shared server is never
 * touched. initdb refuses to run as root: as root, the cluster runs as the `postgres` system user.
 */
export async function startPostgresCluster (): Promise<PostgresCluster> {
  const bin = binaries()
  const dir = mkdtempSync(join(tmpdir(), 'content-pg-'))
  const data = join(dir, 'data')
  const logFile = join(dir, 'server.log')
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const pg = (tool: string, args: string[]) => asRoot
    ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: dir })
    : run(join(bin, tool), args, { cwd: dir })
  const port = await freePort()
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60 -c shared_buffers=16MB`
  let running = false
  const cluster: PostgresCluster = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    async start () {
      await pg('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start'])
      running = true
    },
    async stop (mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop'])
      running = false
    },
    async restart () {
      await cluster.stop('fast')
      await cluster.start()
    },
    async destroy () {
      if (running) await cluster.stop('immediate').catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await cluster.start()
  } catch (err) {
    await cluster.destroy()
    throw err
  }
  return cluster
}
