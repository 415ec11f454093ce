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
