import { windowEvents } from '../scheduled-publication.js'
import type { Status } from '../types.js'
import type { Steps, Tx } from '../unit-of-work.js'

/**
 * One scheduled-publication round at `now` (SchedulePort.announce, decisions §16): moves the watermark W
 * to `now` and records the window events of (W, now]; the first round a store runs only sets W, and a
 * round not past W records nothing. Answers how many events it recorded.
 */
export function * announceWindows (tx: Tx, now: number, statuses: Status[]): Steps<number> {
  const after = yield * tx.advanceWatermark(now)
  if (after === null || statuses.length === 0) return 0
  const drafts = windowEvents(yield * tx.windowRows(after, now, statuses), after, now)
  yield * tx.appendChanges(drafts)
  return drafts.length
}
