import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CONFIG_FILE_KEYS } from '../services/gateway/src/routing/config-file.js'
import { DEFAULT_ENDPOINTS } from '../services/gateway/src/routing/defaults.js'
import { blocksOf, fencedBlocks, type FencedBlock } from './support/markdown-blocks.js'
import { startRedis } from './support/redis.js'
import { freePort, http, removeDir, ROOT, startSystem } from './support/system.js'

// Every configuration example in the docs is loaded exactly as printed. Its block says what it is after
// the language: ```yaml config-file (a gateway CONFIG_FILE), ```conf redis.conf (a Redis configuration).
const KINDS = ['config-file', 'redis.conf'] as const
const CONFIG_LANGS = new Set(['yaml', 'yml', 'conf', 'ini', 'toml', 'properties', 'env'])
const configKey = new RegExp(`^\\s*"?(${CONFIG_FILE_KEYS.join('|')})"?\\s*:`, 'm')

const blocks = blocksOf(ROOT)
const ofKind = (kind: typeof KINDS[number]) => blocks.filter((b) => b.tags.includes(kind))
const where = (b: FencedBlock) => `${b.file}:${b.line}`

/** A block a reader would take for configuration: a config language, or a CONFIG_FILE key at the start of a line. */
const looksLikeConfig = (b: FencedBlock) => CONFIG_LANGS.has(b.lang) || configKey.test(b.text)

const dirs: string[] = []
afterAll(() => { for (const dir of dirs) removeDir(dir) })
const scratch = () => { const dir = mkdtempSync(join(tmpdir(), 'config-example-')); dirs.push(dir); return dir }

describe('the docs\' configuration examples', () => {
  it('when a block looks like configuration, then it is marked with what it configures, so a test below loads it', () => {
    const unmarked = blocks.filter((b) => looksLikeConfig(b) && !KINDS.some((k) => b.tags.includes(k)))
    expect(unmarked.map(where)).toEqual([])
    expect(ofKind('config-file').map((b) => b.file)).toEqual(expect.arrayContaining(['README.md', 'services/gateway/README.md']))
    expect(ofKind('redis.conf').length).toBeGreaterThan(0)
  })

  it('finds blocks as CommonMark does: ``` and ~~~ fences, info words, and an unmarked YAML config', () => {
    const md = 'text\n```yaml config-file\nbasePath: /\n```\n~~~\nblacklist: [poster]\n~~~\n```sh\nnpm start\n```\n'
    const found = fencedBlocks('x.md', md)
    expect(found.map((b) => [b.line, b.lang, b.tags, b.text])).toEqual([
      [2, 'yaml', ['config-file'], 'basePath: /\n'], [5, '', [], 'blacklist: [poster]\n'], [8, 'sh', [], 'npm start\n'],
    ])
    expect(found.map(looksLikeConfig)).toEqual([true, true, false])
  })

  it.each(ofKind('config-file').map((b) => [where(b), b] as const))('%s: a blacklist comment that names the default endpoints names them all', (_where, block) => {
    const listed = /^blacklist:.*#.*\(([^)]*)\)/m.exec(block.text)?.[1]
    if (listed === undefined) return
    expect(listed.split(',').map((s) => s.trim()).sort()).toEqual([...DEFAULT_ENDPOINTS].sort())
  })

  it.each(ofKind('config-file').map((b) => [where(b), b] as const))('%s: the system starts with it as CONFIG_FILE, and its blacklist answers 405', { timeout: 120_000 }, async (_where, block) => {
    const config = join(scratch(), 'gateway.yaml')
    writeFileSync(config, block.text)
    const system = await startSystem({ CONFIG_FILE: config })
    try {
      const base = /^basePath:\s*(\S+)/m.exec(block.text)?.[1]?.replace(/\/$/, '') ?? ''
      const listing = await http(system.base, 'GET', `${base}/`)
      expect(listing.status).toBe(200)
      const blacklisted = /^blacklist:\s*\[([^\]]*)\]/m.exec(block.text)?.[1]?.split(',').map((s) => s.trim()).filter(Boolean) ?? []
      for (const name of blacklisted) {
        expect(Object.keys(listing.body.data)).not.toContain(name)
        expect((await http(system.base, 'GET', `${base}/${name}/1`)).status).toBe(405)
      }
    } finally {
      await system.stop()
      removeDir(system.dataDir)
    }
  })

  it.each(ofKind('redis.conf').map((b) => [where(b), b] as const))('%s: redis-server starts with it and holds each setting', async (_where, block) => {
    const dir = scratch()
    const port = await freePort()
    const file = join(dir, 'redis.conf')
    writeFileSync(file, block.text)
    const redis = await startRedis(port, dir, file)
    try {
      const settings = block.text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))
      expect(settings.length).toBeGreaterThan(0)
      for (const line of settings) {
        const [name = '', value = ''] = line.split(/\s+/)
        const got = spawnSync('redis-cli', ['-p', String(port), '--raw', 'CONFIG', 'GET', name], { encoding: 'utf8' }).stdout.trim().split('\n')
        expect(got, line).toEqual([name, value])
      }
    } finally {
      await redis.stop()
    }
  })
})
