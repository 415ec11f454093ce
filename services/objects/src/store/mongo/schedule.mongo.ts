import { windowEvents } from '../../core/scheduled-publication.js'
import type { Status } from '../../core/types.js'
import type { Tx } from './schema.mongo.js'

/** The meta document holding the watermark: the instant (ms) through which window boundaries were announced. */
const WATERMARK = 'windows_announced_through'

/** One scheduled-publication round (SchedulePort.announce), inside the transaction `tx`. */
export async function announceWindows (tx: Tx, now: number, statuses: Status[]): Promise<number> {
  const { c, session } = tx
  const mark = await c.meta.findOne({ _id: WATERMARK }, { session })
  if (mark === null) {
    await c.meta.updateOne({ _id: WATERMARK }, { $setOnInsert: { value: String(now) } }, { upsert: true, session })
    return 0
  }
  const after = Number(mark.value)
  if (now <= after) return 0
  // Compare-and-set: another process's round that moved W since this transaction's snapshot makes this
  // write conflict, and the driver runs the round again from nothing (it then finds W moved).
  const moved = await c.meta.updateOne({ _id: WATERMARK, value: mark.value }, { $set: { value: String(now) } }, { session })
  if (moved.modifiedCount === 0 || statuses.length === 0) return 0
  // end_date + 1 in (after, now]; each branch of the $or uses its index (start_date, end_date)
  const docs = await c.objects.find({
    status: { $in: statuses },
    $or: [{ start_date: { $gt: after, $lte: now } }, { end_date: { $gte: after, $lt: now } }],
  }, { projection: { start_date: 1, end_date: 1, modified: 1 }, session }).toArray()
  const drafts = windowEvents(docs.map((d) => ({ id: d._id, start_date: d.start_date ?? null, end_date: d.end_date ?? null, modified: d.modified })), after, now)
  await tx.record(drafts)
  return drafts.length
}
