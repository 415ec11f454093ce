import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { checkHealth } from '@content/platform'
import { TEST_IDENTITY, createTestDatabase } from '@content/platform/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { gatewayClient } from '../helpers/rpc.js'
import { TEST_SECRET } from '../helpers/stack.js'
import { tempDir } from '../helpers/temp.js'
import { must } from '../helpers/must.js'

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))
const built = existsSync(MAIN)

interface Running { child: ChildProcess, out: () => string, err: () => string, exited: Promise<number | null> }

function run (env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', LOG_LEVEL: 'info', SERVICE_SECRET: TEST_IDENTITY.SERVICE_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  must(child.stdout).on('data', (d) => { out += String(d) })
  must(child.stderr).on('data', (d) => { err += String(d) })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, out: () => out, err: () => err, exited }
}

async function listening (r: Running): Promise<string> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const line = r.out().split('\n').find((l) => l.includes('auth service listening'))
    if (line) return `127.0.0.1:${(JSON.parse(line) as { port: number }).port}`
    if (r.child.exitCode !== null) break
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error(`auth did not start:\n${r.out()}\n${r.err()}`)
}

const started: Running[] = []
afterEach(() => { for (const r of started.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL') })

describe.skipIf(!built)(`the auth process${built ? '' : ' (skipped: run npm run build -w @content/auth first)'}`, () => {
  it('refuses a JWT_SECRET under 32 bytes with a clear error and status 78', async () => {
    const dir = tempDir()
    const r = run({ JWT_SECRET: 'too-short', DATA_DIR: dir.path })
    expect(await r.exited).toBe(78)
    expect(r.err()).toContain('JWT_SECRET: must be at least 32 bytes')
    dir.remove()
  })

  it('bootstraps once, shows the generated admin password once, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir()
    const env = { JWT_SECRET: TEST_SECRET, DATA_DIR: dir.path }
    const first = run(env)
    started.push(first)
    const address = await listening(first)
    const shown = first.out().split('\n').filter((l) => l.startsWith('admin password (shown once): '))
    expect(shown).toHaveLength(1)
    const password = must(shown[0]).slice('admin password (shown once): '.length)
    expect(first.out().split(password)).toHaveLength(2) // printed exactly once, nowhere in the log lines
    expect(await checkHealth(address, 2_000)).toBe(true)
    const client = gatewayClient(address)
    const pair = await client.Login({ username: 'admin', password, client_address: '127.0.0.1' })
    client.close()
    expect(pair.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(first.out()).toContain('"msg":"stopped"')

    const second = run(env)
    started.push(second)
    const again = await listening(second)
    expect(second.out()).not.toContain('admin password')
    const client2 = gatewayClient(again)
    await client2.Refresh({ refresh_token: pair.refresh_token })
    client2.close()
    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    dir.remove()
  })

  it('on STORE=postgres: migrates the auth schema at start, keeps accounts and refresh tokens there; MIGRATE_ON_START=false then serves it', async () => {
    const database = await createTestDatabase('auth_process')
    const dir = tempDir()
    try {
      const env = { JWT_SECRET: TEST_SECRET, DATA_DIR: dir.path, STORE: 'postgres', DATABASE_URL: database.url, ADMIN_PASSWORD: 'admin-password-0123' }
      const first = run(env)
      started.push(first)
      const address = await listening(first)
      expect(first.out()).toContain('auth (PostgreSQL schema auth): from version 0 to version 2')
      const client = gatewayClient(address)
      const pair = await client.Login({ username: 'admin', password: 'admin-password-0123', client_address: '127.0.0.1' })
      client.close()
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      expect(existsSync(`${dir.path}/auth.sqlite`)).toBe(false) // nothing of it in SQLite

      const second = run({ ...env, MIGRATE_ON_START: 'false' })
      started.push(second)
      const client2 = gatewayClient(await listening(second))
      await client2.Refresh({ refresh_token: pair.refresh_token })
      client2.close()
      second.child.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    } finally {
      dir.remove()
      await database.drop()
    }
  })

  it('with MIGRATE_ON_START=false, refuses a database without the auth schema, saying what to run', async () => {
    const database = await createTestDatabase('auth_process')
    try {
      const r = run({ JWT_SECRET: TEST_SECRET, STORE: 'postgres', DATABASE_URL: database.url, MIGRATE_ON_START: 'false' })
      expect(await r.exited).toBe(1)
      expect(r.out()).toContain('the auth store (PostgreSQL schema auth) has no schema yet; this release needs version 2: run `npm run admin -- migrate`')
    } finally {
      await database.drop()
    }
  })
})
