// No MongoDB server exists on the build machines: this checks, against fake collections, the steps of a
// scheduled-publication round on MongoDB (core's round, core/writes/schedule.writes.ts, over the
// adapter's steps); the schedule contract suite runs it on a replica set with MONGODB_URL.
import { describe, expect, it } from 'vitest'
import type { ChangeDraft } from '../../src/core/change-events.js'
import { runSteps, txOf } from '../../src/core/unit-of-work.js'
import { announceWindows as round } from '../../src/core/writes/schedule.writes.js'
import type { Tx } from '../../src/store/mongo/schema.mongo.js'
import { MongoSteps } from '../../src/store/mongo/write-steps.mongo.js'

/** A transaction whose meta collection holds `mark` (null: none) and whose objects query answers `docs`. */
function fakeTx (mark: string | null, docs: object[], modified = 1) {
  const calls: { op: string, filter: unknown, update?: unknown }[] = []
  const recorded: ChangeDraft[] = []
  const meta = {
    findOne: async () => (mark === null ? null : { _id: 'windows_announced_through', value: mark }),
    updateOne: async (filter: unknown, update: unknown) => {
      calls.push({ op: 'meta.updateOne', filter, update })
      return { modifiedCount: modified, upsertedCount: mark === null ? 1 : 0 }
    },
  }
  const objects = {
    find: (filter: unknown) => {
      calls.push({ op: 'objects.find', filter })
      return { toArray: async () => docs }
    },
  }
  const tx = { c: { meta, objects }, session: {} } as unknown as Tx
  const steps = new MongoSteps(tx)
  steps.appendChanges = async (drafts: readonly ChangeDraft[]) => { recorded.push(...drafts) }
  return { tx: steps, calls, recorded }
}

const announceWindows = (steps: MongoSteps, now: number, statuses: ('on' | 'draft')[]) =>
  runSteps(round(txOf(steps, { revisionsKeep: null }), now, statuses))

describe('MongoDB scheduled-publication round', () => {
  it('when the store has no watermark, then the round sets it to now and records nothing', async () => {
    const { tx, calls, recorded } = fakeTx(null, [])
    expect(await announceWindows(tx, 1_000, ['on'])).toBe(0)
    expect(calls).toEqual([{ op: 'meta.updateOne', filter: { _id: 'windows_announced_through' }, update: { $setOnInsert: { value: '1000' } } }])
    expect(recorded).toEqual([])
  })

  it('when now is past the watermark, then it moves it by compare-and-set, reads the boundaries in (W, now] and records their events', async () => {
    const { tx, calls, recorded } = fakeTx('1000', [{ _id: 5, start_date: 1_500, end_date: null, modified: 10 }, { _id: 6, start_date: null, end_date: 1_200, modified: 10 }])
    expect(await announceWindows(tx, 2_000, ['on'])).toBe(2)
    expect(calls).toEqual([
      { op: 'meta.updateOne', filter: { _id: 'windows_announced_through', value: '1000' }, update: { $set: { value: '2000' } } },
      { op: 'objects.find', filter: { status: { $in: ['on'] }, $or: [{ start_date: { $gt: 1_000, $lte: 2_000 } }, { end_date: { $gte: 1_000, $lt: 2_000 } }] } },
    ])
    expect(recorded).toEqual([{ type: 'object.unpublished', object_id: 6 }, { type: 'object.published', object_id: 5 }])
  })

  it('when another round moved the watermark, or now is not past it, or no status is announced, then nothing is recorded', async () => {
    const lost = fakeTx('1000', [{ _id: 5, start_date: 1_500, end_date: null, modified: 10 }], 0)
    expect(await announceWindows(lost.tx, 2_000, ['on'])).toBe(0)
    expect(lost.calls.map((c) => c.op)).toEqual(['meta.updateOne'])
    const early = fakeTx('2000', [])
    expect(await announceWindows(early.tx, 2_000, ['on'])).toBe(0)
    expect(early.calls).toEqual([])
    const off = fakeTx('1000', [{ _id: 5, start_date: 1_500, end_date: null, modified: 10 }])
    expect(await announceWindows(off.tx, 2_000, [])).toBe(0)
    expect(off.calls.map((c) => c.op)).toEqual(['meta.updateOne'])
    expect([...lost.recorded, ...early.recorded, ...off.recorded]).toEqual([])
  })
})
