import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '../../scripts/launcher/ports.mjs'
import { checkAnswersOf, forgetAnswersOf } from './contract-fetch.js'
import { must } from './must.js'
import { systemStore } from './system-store.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' }

export interface RunningSystem {
  base: string
  dataDir: string
  output: () => string
  /** SIGTERM to the launcher; resolves with its exit code and how long stopping took. */
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null, ms: number }>
  child: ChildProcess
}

/** A port below the ephemeral range, free when picked: `scripts/launcher/ports.mjs`. */
export { freePort }

/**
 * Starts the system exactly as `npm start` does after building (`node scripts/start.mjs`), on a
 * fresh DATA_DIR unless one is given, and waits for its "ready at" line. A port picked free can be taken
 * by a concurrently starting system before it is bound: that start is retried on other ports (and, when
 * the data directory is this call's own, on a fresh one, so a demo seed still sees an empty store).
 */
export async function startSystem (env: Record<string, string> = {}, dataDir?: string): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt++) {
    const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'content-system-'))
    try {
      return await launch(env, dir)
    } catch (err) {
      if (dataDir === undefined) removeDir(dir)
      if (attempt === 3 || !String(err).includes('EADDRINUSE')) throw err
    }
  }
}

async function launch (chosen: Record<string, string>, dir: string): Promise<RunningSystem> {
  const { env, drop } = await systemStore(chosen)
  const port = await freePort()
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    // the suite starts many systems at once on two cores: a service may take longer than npm start's 30 s,
    // and this waits 90 s for the whole system
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn', SEED_DEMO: 'false', STARTUP_TIMEOUT_MS: '60000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  must(child.stdout).on('data', (chunk) => { out += String(chunk) })
  must(child.stderr).on('data', (chunk) => { out += String(chunk) })
  const base = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`system did not start:\n${out}`)), 90_000)
    const onData = () => {
      const match = /ready at (http:\/\/\S+?)\/?\s*$/m.exec(out)
      if (match) { clearTimeout(timer); res(must(match[1])) }
    }
    must(child.stdout).on('data', onData)
    child.once('exit', (code) => { clearTimeout(timer); rej(new Error(`system exited with ${code}:\n${out}`)) })
  }).catch(async (err: unknown) => {
    child.kill('SIGKILL')
    await drop()
    throw err
  })
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => { forgetAnswersOf(base); res(code) }))
  checkAnswersOf(base)
  return {
    base,
    dataDir: dir,
    child,
    output: () => out,
    async stop (signal = 'SIGTERM') {
      const started = Date.now()
      if (child.exitCode === null) child.kill(signal)
      const code = await exited
      await drop()
      return { code, ms: Date.now() - started }
    },
  }
}

export function removeDir (dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

export interface Reply {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: whatever JSON the system answered; each test asserts the shape it reads
  body: any
}

/** One HTTP request; the body is parsed as JSON when there is one. */
export async function http (base: string, method: string, path: string, options: { body?: unknown, headers?: Record<string, string>, raw?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const res = await fetch(base + path, { method, headers, body })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
}
