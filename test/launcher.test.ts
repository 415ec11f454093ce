import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN, freePort, http, removeDir, ROOT, startSystem } from './support/system.js'
import { must } from './support/must.js'

/** The services the launcher `pid` runs right now, by name. */
function servicesOf (pid: number): Map<string, number> {
  const ps = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout
  const found = new Map<string, number>()
  for (const line of ps.split('\n')) {
    const match = /^\s*(\d+)\s.*services\/(\w+)\/dist\/main\.js/.exec(line)
    if (match) found.set(must(match[2]), Number(match[1]))
  }
  return found
}

/** Every process whose environment holds this DATA_DIR: whatever a launcher left behind. */
function processesOf (dataDir: string): number[] {
  const needle = `DATA_DIR=${dataDir}\0`
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle)
    } catch {
      return false
    }
  }).map(Number)
}

const waitUntil = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
  for (const until = Date.now() + timeoutMs; Date.now() < until;) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`)
}

/** `node scripts/start.mjs` on `dataDir`, its output collected; `exited` answers its signal or exit code. */
async function launcherIn (dataDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  for (const stream of [child.stdout, child.stderr]) must(stream).on('data', (chunk) => { out += String(chunk) })
  const exited = new Promise<string>((r) => child.once('exit', (code, signal) => r(signal ?? String(code))))
  return { child, exited, output: () => out }
}

describe('npm start keeps the system running', () => {
  it('a SIGKILLed objects service is restarted while the gateway keeps answering, and reads work again', async () => {
    const system = await startSystem({ READ_CACHE: 'false' })
    try {
      const before = servicesOf(must(system.child.pid))
      expect([...before.keys()].sort()).toEqual(['auth', 'gateway', 'objects', 'poster'])
      process.kill(must(before.get('objects')), 'SIGKILL')
      // meanwhile the gateway answers, in the error shape, for what needs objects
      const during = await http(system.base, 'GET', '/healthz')
      expect(during.status).toBe(200)
      await waitUntil('objects restarted', () => {
        const now = servicesOf(must(system.child.pid)).get('objects')
        return now !== undefined && now !== before.get('objects')
      })
      await waitUntil('reads served again', async () => (await http(system.base, 'GET', '/objects/1')).status === 200)
      expect(servicesOf(must(system.child.pid)).get('gateway')).toBe(before.get('gateway'))
      expect(system.output()).toMatch(/objects exited \(SIGKILL\); restarting in \d+ ms/)
    } finally {
      await system.stop()
      removeDir(system.dataDir)
    }
  })

  it('SIGTERM at any moment of start-up leaves no process behind', async () => {
    for (const delayMs of [50, 300, 700, 1_200, 2_000, 3_000]) {
      // a port picked free can be taken by a concurrently starting system before a service binds it, which
      // fails that start (exit 1) before the signal: as startSystem does, that start is tried again
      for (let attempt = 1; ; attempt++) {
        const dataDir = mkdtempSync(join(tmpdir(), 'content-launcher-'))
        const launcher = await launcherIn(dataDir, { SEED_DEMO: 'true' })
        await new Promise((r) => setTimeout(r, delayMs))
        launcher.child.kill('SIGTERM')
        const code = await launcher.exited
        const out = launcher.output()
        // what outlived the launcher gets a moment to exit, as a crash or SIGKILL would not give it
        await waitUntil(`nothing left after SIGTERM at ${delayMs} ms`, () => processesOf(dataDir).length === 0, 3_000)
          .finally(() => { for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL') })
        removeDir(dataDir)
        if (code === '1' && out.includes('EADDRINUSE') && attempt < 3) continue
        // before its handlers are installed (nothing launched yet) the signal ends node itself
        expect(['0', 'SIGTERM'], `exit after SIGTERM at ${delayMs} ms, the launcher said:\n${out}`).toContain(code)
        break
      }
    }
  }, 120_000)
})

describe('npm start gives each service STARTUP_TIMEOUT_MS to become ready', () => {
  /** Runs the launcher to its exit; answers its exit code and what it printed. */
  const runLauncher = async (timeout: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'content-launcher-'))
    const launcher = await launcherIn(dataDir, { SEED_DEMO: 'false', STARTUP_TIMEOUT_MS: timeout })
    const code = await launcher.exited
    const out = launcher.output()
    await waitUntil('nothing left after the launcher gave up', () => processesOf(dataDir).length === 0, 10_000)
      .finally(() => { for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL') })
    removeDir(dataDir)
    return { code, out }
  }

  it('when a service is not ready within it, then start-up stops everything and exits 1, naming the service', async () => {
    // no service answers its health check within a millisecond of being launched
    const { code, out } = await runLauncher('1')
    expect(code).toBe('1')
    expect(out).toContain('objects did not become ready within 0.001 s')
  }, 60_000)

  it('when it is not a positive whole number of milliseconds, then nothing starts and the launcher says so', async () => {
    for (const bad of ['abc', '0', '-5', '1.5']) {
      const { code, out } = await runLauncher(bad)
      expect(code, bad).toBe('1')
      expect(out, bad).toContain(`STARTUP_TIMEOUT_MS must be a positive whole number of milliseconds, not "${bad}"`)
    }
  }, 60_000)
})

describe('npm start runs each service', () => {
  /** The command line of the process `pid`, argument by argument. */
  const argsOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')

  it('with 64 MiB semi-spaces (Node 24\'s young generation, also on Node 20), unless NODE_OPTIONS sizes them; on Node 20 with a quarter of the JIT\'s interrupt budget', async () => {
    // Node takes a V8 flag's words joined by - or by _
    for (const [nodeOptions, expected] of [['', true], ['--max-semi-space-size=16', false], ['--max_semi_space_size=16', false]] as const) {
      const system = await startSystem({ NODE_OPTIONS: nodeOptions })
      try {
        const services = servicesOf(must(system.child.pid))
        expect([...services.keys()].sort()).toEqual(['auth', 'gateway', 'objects', 'poster'])
        for (const [name, pid] of services) {
          expect(argsOf(pid).includes('--max-semi-space-size=64'), `${name} with NODE_OPTIONS='${nodeOptions}'`).toBe(expected)
          // Node 24 does not know the flag (it would refuse to start)
          expect(argsOf(pid).includes('--interrupt-budget=16000'), name).toBe(process.versions.node.startsWith('20.'))
        }
      } finally {
        await system.stop()
        removeDir(system.dataDir)
      }
    }
  }, 120_000)
})

describe('npm start output', () => {
  it('a generated admin password is printed after the ready line, not among the log lines, and logs in', async () => {
    const system = await startSystem({ ADMIN_PASSWORD: '' })
    try {
      const out = system.output()
      expect(out).not.toContain('admin password (shown once)')
      const password = /admin password \(generated, shown once\): (\S+)/.exec(out)?.[1]
      expect(password).toBeDefined()
      expect(out.indexOf(must(password))).toBeGreaterThan(out.indexOf('ready at'))
      const login = await http(system.base, 'POST', '/auth', { body: { username: 'admin', password } })
      expect(login.status).toBe(200)
    } finally {
      await system.stop()
      removeDir(system.dataDir)
    }
  })

  it('logs are JSON lines when stdout is not a terminal, and readable lines with LOG_FORMAT=pretty', async () => {
    for (const format of ['json', 'pretty'] as const) {
      const system = await startSystem({ LOG_LEVEL: 'info', ...(format === 'pretty' ? { LOG_FORMAT: 'pretty' } : {}) })
      // JSON lines are not read back: the gateway writes to the launcher's own stdout; pretty ones pass through a pipe of the launcher's
      const launcherOut = readlinkSync(`/proc/${must(system.child.pid)}/fd/1`)
      const gatewayOut = readlinkSync(`/proc/${must(servicesOf(must(system.child.pid)).get('gateway'))}/fd/1`)
      if (format === 'json') expect(gatewayOut).toBe(launcherOut)
      else expect(gatewayOut).not.toBe(launcherOut)
      await system.stop()
      removeDir(system.dataDir)
      const listening = system.output().split('\n').filter((line) => line.includes('objects service listening'))
      expect(listening, format).toHaveLength(1)
      if (format === 'json') expect(JSON.parse(must(listening[0]))).toMatchObject({ service: 'objects', msg: 'objects service listening' })
      else expect(listening[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*objects: objects service listening/)
    }
  }, 180_000) // two systems, one after the other
})
