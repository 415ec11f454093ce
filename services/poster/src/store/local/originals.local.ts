import { open, readdir, rm, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { isContentKey } from '../../core/types.js'
import { assertKey, type ByteSpan, type OriginalInfo, type OriginalsPort, type StoredOriginal } from '../media.store.js'
import { KeyLocks, isMissing, moveDurably } from './fs-durable.js'

const CHUNK = 64 * 1024
const PREFIX = /^[0-9a-f]{2}$/

/**
 * Originals as files `originals/<first 2 hex>/<key>`; the file's mtime is when the key was last stored.
 * One lock per key orders `put` and `removeIfIdle`: a key stored again while the collector looks at it
 * gets a fresh mtime and survives. (One process owns a data directory.)
 */
export class LocalOriginals implements OriginalsPort {
  private readonly locks = new KeyLocks()

  constructor (private readonly root: string, readonly stagingDir: string, private readonly now: () => number) {}

  private file (key: string): string {
    assertKey(key)
    return join(this.root, key.slice(0, 2), key)
  }

  put (key: string, stagedPath: string, _info: OriginalInfo): Promise<'stored' | 'present'> {
    const file = this.file(key)
    return this.locks.with(key, async () => {
      const at = new Date(this.now())
      try {
        await utimes(file, at, at)
        return 'present'
      } catch (err) {
        if (!isMissing(err)) throw err
      }
      await moveDurably(stagedPath, file)
      await utimes(file, at, at)
      return 'stored'
    })
  }

  async stat (key: string): Promise<StoredOriginal | null> {
    try {
      const s = await stat(this.file(key))
      return { key, size: s.size, used: s.mtimeMs }
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  async open (key: string, span?: ByteSpan): Promise<Readable | null> {
    try {
      const handle = await open(this.file(key), 'r')
      return handle.createReadStream({ highWaterMark: CHUNK, ...(span ? { start: span.start, end: span.end } : {}) })
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  async path (key: string): Promise<string | null> {
    return (await this.stat(key)) === null ? null : this.file(key)
  }

  async idle (before: number, afterKey: string, limit: number): Promise<string[]> {
    const found: string[] = []
    const prefixes = (await listSorted(this.root)).filter((p) => PREFIX.test(p) && p >= afterKey.slice(0, 2))
    for (const prefix of prefixes) {
      const keys = (await listSorted(join(this.root, prefix))).filter((k) => isContentKey(k) && k.startsWith(prefix) && k > afterKey)
      for (const key of keys) {
        const original = await this.stat(key)
        if (original !== null && original.used < before) found.push(key)
        if (found.length >= limit) return found
      }
    }
    return found
  }

  removeIfIdle (key: string, before: number): Promise<boolean> {
    const file = this.file(key)
    return this.locks.with(key, async () => {
      const original = await this.stat(key)
      if (original === null || original.used >= before) return false
      await rm(file, { force: true })
      return true
    })
  }
}

async function listSorted (dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch (err) {
    if (isMissing(err)) return []
    throw err
  }
}
