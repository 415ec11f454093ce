import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { freePort, http, removeDir, ROOT, startSystem } from './support/system.js'

describe('starting and stopping', () => {
  it('on an empty store npm start loads the demo publication, keeps a generated JWT secret, and SIGTERM stops everything within 10 s', async () => {
    const system = await startSystem({ SEED_DEMO: 'true', JWT_SECRET: '' })
    try {
      const welcome = await http(system.base, 'GET', '/objects/welcome')
      expect(welcome.status).toBe(200)
      expect(welcome.body.data.object.object_type).toBe('document')
      const secret = readFileSync(join(system.dataDir, 'jwt-secret'), 'utf8')
      expect(secret.length).toBeGreaterThanOrEqual(32)
      const services = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8'))
      expect(Object.keys(services).sort()).toEqual(['auth', 'gateway', 'metrics', 'objects', 'poster'])

      const { code, ms } = await system.stop('SIGTERM')
      expect(code).toBe(0)
      expect(ms).toBeLessThan(10_000)
      await expect(fetch(`${system.base}/healthz`)).rejects.toThrow()
    } finally {
      await system.stop()
      removeDir(system.dataDir)
    }
  })

  it('a restart keeps the data and does not seed the demo again', async () => {
    const first = await startSystem({ SEED_DEMO: 'true' })
    const before = await http(first.base, 'GET', '/objects?page_size=100')
    await first.stop()
    const second = await startSystem({ SEED_DEMO: 'true' }, first.dataDir)
    try {
      const after = await http(second.base, 'GET', '/objects?page_size=100')
      expect(after.body.paging.total).toBe(before.body.paging.total)
      expect(after.body.paging.total).toBeGreaterThan(0)
    } finally {
      await second.stop()
      removeDir(first.dataDir)
    }
  })

  it('a CONFIG_FILE blacklists endpoints: 405 and absent from the listing', async () => {
    const config = join(ROOT, 'test', '.blacklist-config.yaml')
    writeFileSync(config, 'blacklist: [poster, files]\n')
    const system = await startSystem({ CONFIG_FILE: config })
    try {
      const listing = await http(system.base, 'GET', '/')
      expect(Object.keys(listing.body.data)).toEqual(['auth', 'changes', 'docs', 'me', 'objects', 'openapi.json', 'trash'])
      const poster = await http(system.base, 'GET', '/poster/1')
      const files = await http(system.base, 'POST', '/files/image/a.jpg', { raw: 'bytes', headers: { 'content-type': 'image/jpeg' } })
      for (const res of [poster, files]) {
        expect(res.status).toBe(405)
        expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED')
      }
    } finally {
      await system.stop()
      removeDir(system.dataDir)
      removeDir(config)
    }
  })

  it('an invalid CONFIG_FILE stops the start with every error listed', async () => {
    const config = join(ROOT, 'test', '.invalid-config.yaml')
    writeFileSync(config, 'blacklist: nope\npathFilters: { GET: [nonsense] }\n')
    const port = await freePort()
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], {
      cwd: ROOT, encoding: 'utf8', timeout: 60_000,
      env: { ...process.env, CONFIG_FILE: config, PORT: String(port), DATA_DIR: join(ROOT, 'test', '.invalid-data'), SEED_DEMO: 'false', ADMIN_PASSWORD: 'x'.repeat(12) },
    })
    removeDir(config)
    removeDir(join(ROOT, 'test', '.invalid-data'))
    expect(run.status).not.toBe(0)
    const output = run.stdout + run.stderr
    expect(output).toContain('blacklist')
    expect(output).toContain('nonsense')
  })

  it('the README names both set-up commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain('npm install && npm start')
    expect(readme).toContain('npm test')
    expect(existsSync(join(ROOT, '.ci', 'run'))).toBe(true)
  })
})
