import type { SchedulePort } from '../../core/ports.js'
import { windowEvents, type WindowRow } from '../../core/scheduled-publication.js'
import type { Status } from '../../core/types.js'
import type { Transactions, Tx } from './transactions.postgres.js'

/** The meta row holding the watermark: the instant (ms) through which window boundaries were announced. */
const WATERMARK = 'windows_announced_through'

const CANDIDATES = `SELECT id, start_date, end_date, modified FROM objects
  WHERE start_date > @after AND start_date <= @now AND status = ANY(@statuses::text[])
  UNION
  SELECT id, start_date, end_date, modified FROM objects
  WHERE end_date >= @after AND end_date < @now AND status = ANY(@statuses::text[])`

/**
 * One scheduled-publication round (SchedulePort.announce). The watermark's row is locked before it is
 * read: rounds of two processes run one after the other, and the second finds W already moved.
 */
async function announceWindows (tx: Tx, now: number, statuses: Status[]): Promise<number> {
  const { db } = tx
  const first = await db.run('INSERT INTO meta (key, value) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING', { key: WATERMARK, now: String(now) }) > 0
  if (first) return 0
  const row = await db.one<{ value: string }>('SELECT value FROM meta WHERE key = @key FOR UPDATE', { key: WATERMARK })
  const after = Number(row?.value)
  if (!(now > after)) return 0
  await db.run('UPDATE meta SET value = @now WHERE key = @key', { key: WATERMARK, now: String(now) })
  if (statuses.length === 0) return 0
  const drafts = windowEvents(await db.all<WindowRow>(CANDIDATES, { after, now, statuses }), after, now)
  await tx.record(drafts)
  return drafts.length
}

export function schedulePort (tx: Transactions): SchedulePort {
  return { announce: (now, statuses) => tx.write((t) => announceWindows(t, now, statuses)) }
}
