import type { WindowRow } from '../../core/scheduled-publication.js'
import type { Status } from '../../core/types.js'
import type { Db } from './db.postgres.js'

/** The meta row holding the watermark: the instant (ms) through which window boundaries were announced. */
const WATERMARK = 'windows_announced_through'

const CANDIDATES = `SELECT id, start_date, end_date, modified FROM objects
  WHERE start_date > @after AND start_date <= @now AND status = ANY(@statuses::text[])
  UNION
  SELECT id, start_date, end_date, modified FROM objects
  WHERE end_date >= @after AND end_date < @now AND status = ANY(@statuses::text[])`

/**
 * Moves the watermark W to `now`, answering where it was (null: set for the first time, or `now` not
 * past it). Its row is locked before it is read: rounds of two processes run one after the other, and
 * the second finds W already moved.
 */
export async function advanceWatermark (db: Db, now: number): Promise<number | null> {
  const first = await db.run('INSERT INTO meta (key, value) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING', { key: WATERMARK, now: String(now) }) > 0
  if (first) return null
  const after = Number((await db.one<{ value: string }>('SELECT value FROM meta WHERE key = @key FOR UPDATE', { key: WATERMARK }))?.value)
  if (!(now > after)) return null
  await db.run('UPDATE meta SET value = @now WHERE key = @key', { key: WATERMARK, now: String(now) })
  return after
}

export const windowRows = (db: Db, after: number, upTo: number, statuses: Status[]): Promise<WindowRow[]> =>
  db.all<WindowRow>(CANDIDATES, { after, now: upTo, statuses })
