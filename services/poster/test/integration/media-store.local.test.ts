import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStoreOptions } from '../../src/store/local/local.store.js'
import { migrateLocalMedia } from '../../src/store/local/schema.local.js'
import { describeMediaStoreContract } from './media-store.contract.js'

const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'media-local-'))
  dirs.push(dir)
  return dir
}
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }) })
/** As the service opens it: laid out by its migrations first. */
const openLocal = async (dir: string, options: LocalStoreOptions) => {
  await migrateLocalMedia(dir, 'migrate')
  return openLocalStore(dir, options)
}

describeMediaStoreContract('local', async (options) => {
  const dir = freshDir()
  const store = await openLocal(dir, { thumbnailMaxBytes: options.thumbnailMaxBytes, now: options.now })
  return { store, cleanup: () => store.close() }
})

describe('MediaStore on local files only', () => {
  const name = (n: number) => `${n.toString(16).padStart(64, '0')}-1x1.png`

  it('when the store is opened again, then its thumbnails are known again, least recently used first', async () => {
    const dir = freshDir()
    const first = await openLocal(dir, { thumbnailMaxBytes: 10_000 })
    for (const n of [1, 2, 3]) await first.thumbnails.put(name(n), n.toString(16).padStart(64, '0'), Buffer.alloc(3_000, n))
    // 2 was used last, 3 long ago
    utimesSync(join(dir, 'thumbnails', '00', name(3)), new Date(1_000), new Date(1_000))
    utimesSync(join(dir, 'thumbnails', '00', name(1)), new Date(2_000), new Date(2_000))
    const again = await openLocal(dir, { thumbnailMaxBytes: 10_000 })
    expect((await again.thumbnails.get(name(3)))?.[0]).toBe(3)
    await again.thumbnails.put(name(4), '4'.padStart(64, '0'), Buffer.alloc(3_000))
    expect(await again.thumbnails.get(name(1))).toBeNull()
    expect(await again.thumbnails.get(name(2))).not.toBeNull()
  })

  it('when the store opens, then what a crash left in staging is removed and foreign files are ignored', async () => {
    const dir = freshDir()
    await openLocal(dir, { thumbnailMaxBytes: 10_000 })
    writeFileSync(join(dir, 'staging', 'half-written.upload'), 'partial')
    writeFileSync(join(dir, 'thumbnails', 'stray.txt'), 'x')
    const store = await openLocal(dir, { thumbnailMaxBytes: 10_000 })
    expect(readdirSync(join(dir, 'staging'))).toEqual([])
    expect(await store.originals.idle(Date.now() + 1_000, '', 10)).toEqual([])
  })

  it('when an original is put, then the staged file has moved into originals/<2 hex>/<key>', async () => {
    const dir = freshDir()
    const store = await openLocal(dir, { thumbnailMaxBytes: 10_000 })
    const staged = join(store.originals.stagingDir, 'upload')
    writeFileSync(staged, 'bytes')
    const key = 'ab'.repeat(32)
    await store.originals.put(key, staged, { mime_type: 'text/plain' })
    expect(readdirSync(join(dir, 'originals', 'ab'))).toEqual([key])
    expect(readdirSync(join(dir, 'staging'))).toEqual([])
    const originals = store.originals
    if (!originals.path) throw new Error('the local store names the file of an original')
    expect(await originals.path(key)).toBe(join(dir, 'originals', 'ab', key))
  })
})
