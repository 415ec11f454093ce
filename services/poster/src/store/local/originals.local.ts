import { open, readdir, rm, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { isContentKey } from '../../core/types.js'
import { assertKey, type OriginalsPort, type StoredOriginal } from '../media.store.js'
import { isMissing, keyLocks, moveDurably } from './fs-durable.js'

const CHUNK = 64 * 1024
const PREFIX = /^[0-9a-f]{2}$/

/**
 * Originals as files `originals/<first 2 hex>/<key>`; the file's mtime is when the key was last stored.
 * One lock per key orders `put` and `removeIfIdle`: a key stored again while the collector looks at it
 * gets a fresh mtime and survives. (One process owns a data directory.)
 */
export function localOriginals (root: string, stagingDir: string, now: () => number): OriginalsPort {
  const locks = keyLocks()
  const file = (key: string): string => {
    assertKey(key)
    return join(root, key.slice(0, 2), key)
  }
  const statOf = async (key: string): Promise<StoredOriginal | null> => {
    try {
      const s = await stat(file(key))
      return { key, size: s.size, used: s.mtimeMs }
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  return {
    stagingDir,
    put (key, stagedPath) {
      const target = file(key)
      return locks.with(key, async () => {
        const at = new Date(now())
        try {
          await utimes(target, at, at)
          return 'present'
        } catch (err) {
          if (!isMissing(err)) throw err
        }
        await moveDurably(stagedPath, target)
        await utimes(target, at, at)
        return 'stored'
      })
    },
    stat: statOf,
    async open (key, span) {
      try {
        const handle = await open(file(key), 'r')
        return handle.createReadStream({ highWaterMark: CHUNK, ...(span ? { start: span.start, end: span.end } : {}) })
      } catch (err) {
        if (isMissing(err)) return null
        throw err
      }
    },
    async path (key) {
      return (await statOf(key)) === null ? null : file(key)
    },
    async idle (before, afterKey, limit) {
      const found: string[] = []
      const prefixes = (await listSorted(root)).filter((p) => PREFIX.test(p) && p >= afterKey.slice(0, 2))
      for (const prefix of prefixes) {
        const keys = (await listSorted(join(root, prefix))).filter((k) => isContentKey(k) && k.startsWith(prefix) && k > afterKey)
        for (const key of keys) {
          const original = await statOf(key)
          if (original !== null && original.used < before) found.push(key)
          if (found.length >= limit) return found
        }
      }
      return found
    },
    removeIfIdle (key, before) {
      const target = file(key)
      return locks.with(key, async () => {
        const original = await statOf(key)
        if (original === null || original.used >= before) return false
        await rm(target, { force: true })
        return true
      })
    },
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
