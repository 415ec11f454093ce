import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { Postgres } from '@content/platform/postgres'
import { isContentKey } from '../../core/types.js'
import { assertKey, type ByteSpan, type OriginalsPort, type StoredOriginal } from '../media.store.js'
import { CHUNK_BYTES } from './schema.postgres.js'

/** Chunks fetched per query while reading: about 1 MiB, so a download holds no more than that. */
const CHUNKS_PER_READ = 4

interface FileRow { length: number, chunk_bytes: number, used: number }

/**
 * Originals in PostgreSQL (`poster.originals` + `poster.original_chunks`), by content key. A put streams the
 * staged file chunk by chunk into one transaction: the key's row is inserted first, so a concurrent put of
 * the same bytes waits on it (PostgreSQL's unique index) and then finds it stored; a read fetches a few
 * chunks per query as the reader drains it, never the whole file; a Range fetches only the chunks it
 * overlaps. Removal deletes the row only while it is still idle; its chunks go with it.
 */
export function postgresOriginals (db: Postgres, stagingDir: string, now: () => number): OriginalsPort {
  const fileOf = async (key: string): Promise<FileRow | null> => {
    assertKey(key)
    const { rows } = await db.query<FileRow>('SELECT length, chunk_bytes, used FROM poster.originals WHERE key = $1', [key])
    return rows[0] ?? null
  }
  const touch = async (key: string): Promise<boolean> =>
    (await db.query('UPDATE poster.originals SET used = greatest(used, $2) WHERE key = $1', [key, now()])).rowCount === 1

  return {
    stagingDir,
    async put (key, stagedPath, info) {
      assertKey(key)
      if (await touch(key)) return 'present'
      const handle = await open(stagedPath, 'r')
      try {
        const { size } = await handle.stat()
        const stored = await db.transaction(async (tx) => {
          const inserted = await tx.query(`INSERT INTO poster.originals (key, length, chunk_bytes, mime_type, used)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO NOTHING`, [key, size, CHUNK_BYTES, info.mime_type, now()])
          // another put of the same bytes committed meanwhile: theirs is the copy
          if (inserted.rowCount !== 1) return false
          const buffer = Buffer.alloc(CHUNK_BYTES)
          for (let n = 0, at = 0; at < size; n++) {
            const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - at), at)
            if (bytesRead === 0) throw new Error('the staged file ended early')
            await tx.query('INSERT INTO poster.original_chunks (key, n, data) VALUES ($1, $2, $3)', [key, n, buffer.subarray(0, bytesRead)])
            at += bytesRead
          }
          return true
        })
        if (stored) return 'stored'
        await touch(key)
        return 'present'
      } finally {
        await handle.close()
      }
    },
    async stat (key): Promise<StoredOriginal | null> {
      const file = await fileOf(key)
      return file === null ? null : { key, size: file.length, used: file.used }
    },
    async open (key, span) {
      const file = await fileOf(key)
      if (file === null) return null
      const range = span ?? { start: 0, end: file.length - 1 }
      return Readable.from(chunksOf(db, key, file, range), { objectMode: false })
    },
    async idle (before, afterKey, limit) {
      const { rows } = await db.query<{ key: string }>(
        'SELECT key FROM poster.originals WHERE key > $1 AND used < $2 ORDER BY key COLLATE "C" LIMIT $3', [afterKey, before, limit])
      return rows.map((r) => r.key).filter(isContentKey)
    },
    async removeIfIdle (key, before) {
      assertKey(key)
      return (await db.query('DELETE FROM poster.originals WHERE key = $1 AND used < $2', [key, before])).rowCount === 1
    },
  }
}

/** The bytes of `range` (inclusive), a few chunks per query, each query when the reader wants more. */
async function * chunksOf (db: Postgres, key: string, file: FileRow, range: ByteSpan): AsyncGenerator<Buffer> {
  if (file.length === 0 || range.end < range.start) return
  const first = Math.floor(range.start / file.chunk_bytes)
  const last = Math.floor(range.end / file.chunk_bytes)
  for (let from = first; from <= last; from += CHUNKS_PER_READ) {
    const to = Math.min(last, from + CHUNKS_PER_READ - 1)
    const { rows } = await db.query<{ n: number, data: Buffer }>(
      'SELECT n, data FROM poster.original_chunks WHERE key = $1 AND n BETWEEN $2 AND $3 ORDER BY n', [key, from, to])
    // a file removed while it was read ends in an error, never in fewer bytes than its length says
    if (rows.length !== to - from + 1) throw new Error(`the original ${key} lost chunks while it was read`)
    for (const { n, data } of rows) {
      const offset = n * file.chunk_bytes
      yield data.subarray(Math.max(0, range.start - offset), Math.min(data.length, range.end - offset + 1))
    }
  }
}
