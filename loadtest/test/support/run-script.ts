import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** A script of `loadtest/autocannon/` (`name`: its file name) run to its end with `env` beside the test's own: its exit code and its output, both streams. */
export function runScript (name: string, env: Record<string, string>): Promise<{ code: number | null, out: string }> {
  const script = fileURLToPath(new URL(`../../autocannon/${name}`, import.meta.url))
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString() })
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })))
}
