import { readFile, readdir, rm, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { parseStoreName } from '../../core/thumbnail-spec.js'
import { assertName, type ThumbnailsPort } from '../media.store.js'
import { isMissing, writeDurably } from './fs-durable.js'

interface Entry {
  bytes: number
  original: string
}

/** The original a store name belongs to ('placeholder' for placeholders), or null for a foreign file. */
function ownerOf (name: string): string | null {
  const target = parseStoreName(name)
  return target === null ? null : target.kind === 'image' ? target.key : 'placeholder'
}

/**
 * Thumbnails as files `thumbnails/<first 2 chars>/<name>`, bounded in total bytes. An in-memory index in
 * least-recently-used order (rebuilt from the files' mtimes at open) decides what goes first.
 */
export async function localThumbnails (root: string, stagingDir: string, maxBytes: number): Promise<ThumbnailsPort> {
  /** oldest use first: Map keeps insertion order, a use moves an entry to the end */
  const index = new Map<string, Entry>()
  const byOriginal = new Map<string, Set<string>>()
  let total = 0

  const file = (name: string): string => {
    assertName(name)
    return join(root, name.slice(0, 2), name)
  }
  const remember = (name: string, original: string, bytes: number): void => {
    index.set(name, { bytes, original })
    total += bytes
    const names = byOriginal.get(original) ?? new Set<string>()
    names.add(name)
    byOriginal.set(original, names)
  }
  const forget = (name: string): void => {
    const entry = index.get(name)
    if (entry === undefined) return
    index.delete(name)
    total -= entry.bytes
    const names = byOriginal.get(entry.original)
    names?.delete(name)
    if (names?.size === 0) byOriginal.delete(entry.original)
  }
  const remove = async (name: string): Promise<void> => {
    forget(name)
    await rm(file(name), { force: true })
  }
  const evict = async (): Promise<void> => {
    while (total > maxBytes) {
      const oldest = index.keys().next()
      if (oldest.done === true) return
      await remove(oldest.value)
    }
  }

  const found: { name: string, original: string, bytes: number, used: number }[] = []
  for (const dir of await listDir(root)) {
    if (dir.length !== 2) continue
    for (const name of await listDir(join(root, dir))) {
      const original = ownerOf(name)
      if (original === null || name.slice(0, 2) !== dir) continue
      const s = await stat(join(root, dir, name)).catch(() => null)
      if (s?.isFile()) found.push({ name, original, bytes: s.size, used: s.mtimeMs })
    }
  }
  for (const f of found.sort((a, b) => a.used - b.used)) remember(f.name, f.original, f.bytes)
  await evict()

  return {
    async get (name) {
      const entry = index.get(name)
      if (entry === undefined) return null
      try {
        const bytes = await readFile(file(name))
        index.delete(name)
        index.set(name, entry)
        const now = new Date()
        void utimes(file(name), now, now).catch(() => undefined) // the order survives a restart
        return bytes
      } catch (err) {
        if (!isMissing(err)) throw err
        forget(name)
        return null
      }
    },
    async put (name, originalKey, bytes) {
      if (bytes.length > maxBytes) return
      await writeDurably(stagingDir, file(name), bytes)
      forget(name)
      remember(name, originalKey, bytes.length)
      await evict()
    },
    async removeFor (originalKey) {
      const names = [...(byOriginal.get(originalKey) ?? [])]
      for (const name of names) await remove(name)
      return names.length
    },
  }
}

async function listDir (dir: string): Promise<string[]> {
  try {
    return await readdir(dir)
  } catch (err) {
    // a stray file where a directory should be is ignored, like a stray file anywhere else
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw err
  }
}
