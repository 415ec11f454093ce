import type { Postgres } from '@content/platform/postgres'
import { assertName, type ThumbnailsPort } from '../media.store.js'

/** Rows looked at per eviction statement, oldest first. */
const EVICT_WINDOW = 1_000

/**
 * Thumbnails in PostgreSQL (`poster.thumbnails`), one row each, bounded in total bytes. Replicas share the
 * table, so the byte total is counted again on the server before evicting, least recently used first; a
 * read marks the row used in the same statement. The table is unlogged (schema.postgres.ts): a read's
 * mark costs no commit to disk.
 */
export async function postgresThumbnails (db: Postgres, maxBytes: number): Promise<ThumbnailsPort> {
  const countBytes = async (): Promise<number> =>
    (await db.query<{ bytes: number }>('SELECT coalesce(sum(length), 0)::bigint AS bytes FROM poster.thumbnails')).rows[0]?.bytes ?? 0
  let total = await countBytes()
  /** Deletes the least recently used rows, just enough of them to bring the total under the bound. */
  const evict = async (): Promise<void> => {
    total = await countBytes()
    while (total > maxBytes) {
      const { rows } = await db.query<{ length: number }>(`WITH oldest AS (
          SELECT name, length, sum(length) OVER (ORDER BY used, name) AS running
          FROM (SELECT name, length, used FROM poster.thumbnails ORDER BY used, name LIMIT ${EVICT_WINDOW}) o)
        DELETE FROM poster.thumbnails t USING oldest WHERE t.name = oldest.name AND oldest.running - oldest.length < $1
        RETURNING t.length`, [total - maxBytes])
      if (rows.length === 0) return
      for (const row of rows) total -= row.length
    }
  }

  return {
    async get (name) {
      assertName(name)
      const { rows } = await db.query<{ data: Buffer }>('UPDATE poster.thumbnails SET used = $2 WHERE name = $1 RETURNING data', [name, Date.now()])
      return rows[0]?.data ?? null
    },
    async put (name, originalKey, bytes) {
      assertName(name)
      if (bytes.length > maxBytes) return
      await db.query(`INSERT INTO poster.thumbnails (name, original, length, used, data) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (name) DO UPDATE SET original = excluded.original, length = excluded.length, used = excluded.used, data = excluded.data`,
      [name, originalKey, bytes.length, Date.now(), bytes])
      total += bytes.length
      if (total > maxBytes) await evict()
    },
    async removeFor (originalKey) {
      return (await db.query('DELETE FROM poster.thumbnails WHERE original = $1', [originalKey])).rowCount ?? 0
    },
  }
}
