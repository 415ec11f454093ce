import { randomUUID } from 'node:crypto'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'

export const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException | null)?.code === 'ENOENT'

/** Flushes a file's bytes, or a directory's entries (a rename or a new file in it), to the disk. */
export async function fsync (path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Creates `dir` (and parents); when it is new, its parent's entry is made durable too. */
export async function ensureDir (dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true })
  if (created !== undefined) await fsync(dirname(dir))
}

/** Moves a complete, flushed file into place: readers see the old state or the whole new file. */
export async function moveDurably (from: string, to: string): Promise<void> {
  await fsync(from)
  await ensureDir(dirname(to))
  await rename(from, to)
  await fsync(dirname(to))
}

/** Writes bytes to a temporary file in `tmpDir`, then moves it into place. */
export async function writeDurably (tmpDir: string, to: string, bytes: Buffer): Promise<void> {
  const tmp = join(tmpDir, `${randomUUID()}.tmp`)
  try {
    const handle = await open(tmp, 'wx')
    try {
      await handle.writeFile(bytes)
    } finally {
      await handle.close()
    }
    await moveDurably(tmp, to)
  } finally {
    await rm(tmp, { force: true })
  }
}

/** Runs work on one key at a time, in call order; different keys run in parallel. */
export interface KeyLocks {
  with<T>(key: string, work: () => Promise<T>): Promise<T>
}

export function keyLocks (): KeyLocks {
  const tails = new Map<string, Promise<void>>()
  return {
    async with (key, work) {
      const previous = tails.get(key) ?? Promise.resolve()
      const run = previous.then(work)
      const tail = run.then(() => undefined, () => undefined)
      tails.set(key, tail)
      try {
        return await run
      } finally {
        if (tails.get(key) === tail) tails.delete(key)
      }
    },
  }
}
