/**
 * The bench's reference servers: the ceiling answers its fixed bytes, and with CEILING_BACKEND it
 * answers, per request, what one gRPC call to the do-nothing backend returned (the floor, (d2)).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const here = (file: string) => fileURLToPath(new URL(`../autocannon/${file}`, import.meta.url))
const started: ChildProcess[] = []

/** Starts a helper and answers the port it prints. */
function start (file: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [here(file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  started.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const port = /^(\d+)\s*$/m.exec(out)?.[1]
      if (port) resolve(port)
    })
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)))
  })
}

afterEach(() => { for (const child of started.splice(0)) child.kill('SIGTERM') })

describe('bench reference servers', () => {
  it('when the ceiling runs alone, then it answers its bytes as JSON', async () => {
    const port = await start('ceiling.mjs', { CEILING_BODY: '{"ceiling":true}' })
    const res = await fetch(`http://127.0.0.1:${port}/objects/1`)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.text()).toBe('{"ceiling":true}')
  })

  it('when the ceiling has a backend, then every request answers the bytes its gRPC call returned', async () => {
    const backend = await start('call-floor-backend.mjs', { FLOOR_BODY: '{"from":"the backend"}' })
    const port = await start('ceiling.mjs', { CEILING_BODY: '{"ceiling":true}', CEILING_BACKEND: backend })
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/objects/${i}`)
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('{"from":"the backend"}')
    }
  })
})
