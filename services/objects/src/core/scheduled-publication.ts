import type { ChangeDraft } from './change-events.js'
import type { ObjectRecord, Status } from './types.js'
import { inWindow, type VisibilitySettings } from './visibility.js'

/*
 * Scheduled publication (decisions §16): an object's window opening (start_date) or closing (the
 * millisecond after end_date) is announced once as object.published / object.unpublished. The store keeps
 * a watermark W, the instant through which boundaries were announced; a round takes the boundaries in
 * (W, now], records their events and moves W to now in one transaction, so each boundary is announced by
 * exactly one round of one process, late after a downtime but never twice.
 */

/** What a round reads of an object whose window has a boundary in its range. */
export type WindowRow = Pick<ObjectRecord, 'id' | 'start_date' | 'end_date' | 'modified'>

interface Boundary { at: number, draft: ChangeDraft }

/**
 * The events of the boundaries in (after, upTo] of objects the store found there (any order), in
 * boundary order. A boundary counts only when the object's visibility changes there (a window that ends
 * before it starts never opens) and the object was last written before it: a write at or after the
 * boundary saw the object already in (or out of) its window and announced itself as an update, and a
 * window moved before its boundary came is read here with its new dates, so the old instant passes silently.
 */
export function windowEvents (rows: readonly WindowRow[], after: number, upTo: number): ChangeDraft[] {
  const due = (at: number, row: WindowRow) => at > after && at <= upTo && row.modified < at
  const found: Boundary[] = []
  for (const row of rows) {
    const opens = row.start_date
    if (opens !== null && due(opens, row) && inWindow(row, opens)) found.push({ at: opens, draft: { type: 'object.published', object_id: row.id } })
    // visible through end_date, hidden from the millisecond after (visibility.ts)
    const closes = row.end_date === null ? null : row.end_date + 1
    if (closes !== null && due(closes, row) && inWindow(row, closes - 1)) found.push({ at: closes, draft: { type: 'object.unpublished', object_id: row.id } })
  }
  return found.sort((a, b) => a.at - b.at || a.draft.object_id - b.draft.object_id).map((b) => b.draft)
}

/** The statuses whose objects' windows are announced: none when windows do not filter reads (PUBLICATION_WINDOW_FILTER off). */
export const announcedStatuses = (settings: VisibilitySettings): Status[] => (settings.windowFilter ? settings.visibleStatuses : [])
