import type { WindowRow } from '../../core/scheduled-publication.js'
import type { Status } from '../../core/types.js'
import type { Tx } from './schema.mongo.js'

/** The meta document holding the watermark: the instant (ms) through which window boundaries were announced. */
const WATERMARK = 'windows_announced_through'

/**
 * Moves the watermark to `now`; answers where it was (WriteSteps.advanceWatermark). A compare-and-set:
 * another process's round that moved W since this transaction's snapshot makes the write conflict, and
 * the driver runs the round again from nothing (it then finds W moved).
 */
export async function advanceWatermark (tx: Tx, now: number): Promise<number | null> {
  const { c, session } = tx
  const mark = await c.meta.findOne({ _id: WATERMARK }, { session })
  if (mark === null) {
    await c.meta.updateOne({ _id: WATERMARK }, { $setOnInsert: { value: String(now) } }, { upsert: true, session })
    return null
  }
  const after = Number(mark.value)
  if (now <= after) return null
  const moved = await c.meta.updateOne({ _id: WATERMARK, value: mark.value }, { $set: { value: String(now) } }, { session })
  return moved.modifiedCount === 0 ? null : after
}

/** Objects whose status is in `statuses` with a window boundary in (after, upTo]: end_date + 1 there; each branch of the $or uses its index. */
export async function windowRows (tx: Tx, after: number, upTo: number, statuses: Status[]): Promise<WindowRow[]> {
  const docs = await tx.c.objects.find({
    status: { $in: statuses },
    $or: [{ start_date: { $gt: after, $lte: upTo } }, { end_date: { $gte: after, $lt: upTo } }],
  }, { projection: { start_date: 1, end_date: 1, modified: 1 }, session: tx.session }).toArray()
  return docs.map((d) => ({ id: d._id, start_date: d.start_date ?? null, end_date: d.end_date ?? null, modified: d.modified }))
}
