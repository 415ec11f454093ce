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
export class LocalThumbnails implements ThumbnailsPort {
  /** oldest use first: Map keeps insertion order, a use moves an entry to the end */
  private readonly index = new Map<string, Entry>()
  private readonly byOriginal = new Map<string, Set<string>>()
  private total = 0

  private constructor (private readonly root: string, private readonly stagingDir: string, private readonly maxBytes: number) {}

  static async open (root: string, stagingDir: string, maxBytes: number): Promise<LocalThumbnails> {
    const store = new LocalThumbnails(root, stagingDir, maxBytes)
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
    for (const f of found.sort((a, b) => a.used - b.used)) store.remember(f.name, f.original, f.bytes)
    await store.evict()
    return store
  }

  /** Bytes held now. */
  get size (): number {
    return this.total
  }

  private file (name: string): string {
    assertName(name)
    return join(this.root, name.slice(0, 2), name)
  }

  async get (name: string): Promise<Buffer | null> {
    const entry = this.index.get(name)
    if (entry === undefined) return null
    try {
      const bytes = await readFile(this.file(name))
      this.index.delete(name)
      this.index.set(name, entry)
      const now = new Date()
      void utimes(this.file(name), now, now).catch(() => undefined) // the order survives a restart
      return bytes
    } catch (err) {
      if (!isMissing(err)) throw err
      this.forget(name)
      return null
    }
  }

  async put (name: string, originalKey: string, bytes: Buffer): Promise<void> {
    if (bytes.length > this.maxBytes) return
    await writeDurably(this.stagingDir, this.file(name), bytes)
    this.forget(name)
    this.remember(name, originalKey, bytes.length)
    await this.evict()
  }

  async removeFor (originalKey: string): Promise<number> {
    const names = [...(this.byOriginal.get(originalKey) ?? [])]
    for (const name of names) await this.remove(name)
    return names.length
  }

  private remember (name: string, original: string, bytes: number): void {
    this.index.set(name, { bytes, original })
    this.total += bytes
    const names = this.byOriginal.get(original) ?? new Set<string>()
    names.add(name)
    this.byOriginal.set(original, names)
  }

  private forget (name: string): void {
    const entry = this.index.get(name)
    if (entry === undefined) return
    this.index.delete(name)
    this.total -= entry.bytes
    const names = this.byOriginal.get(entry.original)
    names?.delete(name)
    if (names?.size === 0) this.byOriginal.delete(entry.original)
  }

  private async remove (name: string): Promise<void> {
    this.forget(name)
    await rm(this.file(name), { force: true })
  }

  private async evict (): Promise<void> {
    while (this.total > this.maxBytes) {
      const oldest = this.index.keys().next()
      if (oldest.done === true) return
      await this.remove(oldest.value)
    }
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
