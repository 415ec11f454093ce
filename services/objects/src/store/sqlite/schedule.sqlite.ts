import { present } from '@content/platform'
import type { WindowRow } from '../../core/scheduled-publication.js'
import type { Status } from '../../core/types.js'
import type { Statements } from './rows.sqlite.js'

/** The meta row holding the watermark: the instant (ms) through which window boundaries were announced. */
const WATERMARK = 'windows_announced_through'

// both ranges use their partial index (objects_start, objects_end); end_date + 1 in (after, now]
const CANDIDATES = `SELECT id, start_date, end_date, modified FROM objects
  WHERE start_date > @after AND start_date <= @now AND status IN (SELECT value FROM json_each(@statuses))
  UNION
  SELECT id, start_date, end_date, modified FROM objects
  WHERE end_date >= @after AND end_date < @now AND status IN (SELECT value FROM json_each(@statuses))`

/** Moves the watermark to `now`; answers where it was (SchedulePort.announce, WriteSteps.advanceWatermark). Call inside a write transaction. */
export function advanceWatermark (st: Statements, now: number): number | null {
  // The first statement writes, so the transaction holds the write lock before it reads W: rounds of two
  // processes on one file run one after the other, and the second finds W already moved.
  const first = st.run('INSERT INTO meta (key, value) VALUES (@key, @now) ON CONFLICT (key) DO NOTHING', { key: WATERMARK, now: String(now) }).changes > 0
  if (first) return null
  const after = Number(present(st.one<{ value: string }>('SELECT value FROM meta WHERE key = @key', { key: WATERMARK }), 'the watermark row').value)
  if (now <= after) return null
  st.run('UPDATE meta SET value = @now WHERE key = @key', { key: WATERMARK, now: String(now) })
  return after
}

export const windowRows = (st: Statements, after: number, upTo: number, statuses: Status[]): WindowRow[] =>
  st.all<WindowRow>(CANDIDATES, { after, now: upTo, statuses: JSON.stringify(statuses) })
