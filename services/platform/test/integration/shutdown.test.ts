import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../../../..')
// A process whose graceful close takes 400 ms, built from the package as services use it.
const SCRIPT = `
import { createLogger, onShutdown } from '@content/platform'
const log = createLogger({ service: 'probe', level: 'info' })
onShutdown(log, 5000, () => new Promise((r) => setTimeout(r, 400)))
setInterval(() => {}, 1000)
console.log('ready')
`

function run (signals: NodeJS.Signals[], gapMs = 50): Promise<{ code: number | null, output: string, ms: number }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let started = 0
    child.stdout.on('data', (c) => {
      output += String(c)
      if (!started && output.includes('ready')) {
        started = Date.now()
        signals.forEach((s, i) => { setTimeout(() => child.kill(s), i * gapMs) })
      }
    })
    child.on('exit', (code) => res({ code, output, ms: Date.now() - started }))
  })
}

describe('onShutdown', () => {
  it('when SIGTERM arrives, then close runs to the end and the process exits 0', async () => {
    const { code, output, ms } = await run(['SIGTERM'])
    expect(code).toBe(0)
    expect(output).toContain('"msg":"stopped"')
    expect(ms).toBeGreaterThanOrEqual(350)
  })

  it('when Ctrl-C reaches the process and the launcher then sends SIGTERM, then shutdown stays graceful', async () => {
    const { code, output } = await run(['SIGINT', 'SIGTERM'])
    expect(code).toBe(0)
    expect(output).toContain('"msg":"stopped"')
    expect(output).not.toContain('second signal')
  })

  it('when the same signal comes twice, then the process exits at once with 1', async () => {
    const { code, output, ms } = await run(['SIGINT', 'SIGINT'])
    expect(code).toBe(1)
    expect(output).toContain('second signal')
    expect(ms).toBeLessThan(350)
  })
})

/** Runs `script` (an ES module using the package) to its end; its exit code and stdout. */
function runScript (script: string, onOutput?: (output: string, child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null, output: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    // decoded as a stream: a chunk of the pipe may end inside a character
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (c: string) => { output += c; onOutput?.(output, child) })
    child.on('exit', (code) => res({ code, output }))
  })
}

describe('buffered log lines', () => {
  it('when the process dies of an uncaught exception, then the lines before it and a fatal line naming it are written', async () => {
    const { code, output } = await runScript(`
import { createLogger } from '@content/platform'
const log = createLogger({ service: 'probe', level: 'info' })
for (let i = 0; i < 3; i++) log.info({ i }, 'before')
setTimeout(() => { throw new Error('kaboom') }, 10)
`)
    expect(code).toBe(1)
    const lines = output.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.filter((l) => l.msg === 'before')).toHaveLength(3)
    expect(lines.at(-1)).toMatchObject({ level: 60, service: 'probe', msg: 'uncaught exception', origin: 'uncaughtException', err: { message: 'kaboom' } })
  })

  it('when many lines beyond ASCII are logged and the process exits, then every line is written whole, once and in order', async () => {
    // more than several of the destination's chunks, each line with two- three- and four-byte characters
    const { code, output } = await runScript(`
import { createLogger } from '@content/platform'
const log = createLogger({ service: 'probe', level: 'info' })
for (let i = 0; i < 5000; i++) log.info({ i, text: 'é✓😀'.repeat(1 + (i % 7)) }, 'line')
process.exit(0)
`)
    expect(code).toBe(0)
    const lines = output.trim().split('\n').map((l) => JSON.parse(l) as { i: number, text: string })
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i))
    expect(lines.every((l) => l.text === 'é✓😀'.repeat(1 + (l.i % 7)))).toBe(true)
  })

  it('when a quiet process logs a line, then it is written within the flush interval, without waiting for more or for the exit', async () => {
    let logged = Number.NaN
    let shown = Number.NaN
    const { output } = await runScript(`
import { createLogger } from '@content/platform'
const log = createLogger({ service: 'probe', level: 'info' })
log.info('ready')
process.stdout.write('logged\\n')
setTimeout(() => process.exit(0), 3000)
`, (out, child) => {
      if (Number.isNaN(logged) && out.includes('logged')) logged = Date.now()
      if (Number.isNaN(shown) && out.includes('"msg":"ready"')) {
        shown = Date.now()
        child.kill('SIGKILL') // no exit hook may write it: it must already be out
      }
    })
    expect(output).toContain('"msg":"ready"')
    // written by the periodic flush (100 ms), long before the exit would have written it
    expect(shown - logged).toBeLessThan(1_500)
  })
})
