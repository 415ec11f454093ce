// No MongoDB server exists on the build machines: this checks, without one, the two things that keep
// MongoDB's concurrent creates from retrying each other: ids from per-process blocks, and which lock
// documents each linking write takes (link-locks.mongo.ts). Two transactions that write a common
// document conflict; these pin which pairs must, and that creates side by side need not. The store
// contract suite runs the writes themselves on a replica set with MONGODB_URL.
import { describe, expect, it } from 'vitest'
import type { Collection } from 'mongodb'
import { IdBlocks } from '../../src/store/mongo/ids.mongo.js'
import { edgeLocks, relationLocks, STRIPES, wholeLocks } from '../../src/store/mongo/link-locks.mongo.js'
import type { CounterDoc } from '../../src/store/mongo/schema.mongo.js'

const none = new Set<number>()
const meet = (a: string[], b: string[]) => a.some((id) => b.includes(id))

// the publication 1, a section 2 under it, a section 3 under 2; 40 and 41 new documents
const under3 = [3, 2, 1]

describe('the lock documents of linking writes', () => {
  it('when two objects are created under one section, then they take different stripes and do not conflict', () => {
    const a = edgeLocks(under3, 40, new Set([40]))
    const b = edgeLocks(under3, 41, new Set([41]))
    expect(a).toHaveLength(3)
    expect(meet(a, b)).toBe(false)
  })

  it('when the section is deleted, or placed or removed anywhere (its ancestors change), while an object is created under it, then they conflict', () => {
    const create = edgeLocks(under3, 40, new Set([40]))
    expect(meet(wholeLocks(3, none), create)).toBe(true)
    // 2 moved: every list below it changes, the new edge's too
    expect(meet(edgeLocks([9, 1], 2, none), create)).toBe(true)
  })

  it('when two existing objects are each placed under the other (or below it) at once, then they conflict: no cycle commits', () => {
    // A (5) under B (6), and B under D (7), D being under A
    const aUnderB = edgeLocks([6, 1], 5, none)
    const bUnderD = edgeLocks([7, 5, 1], 6, none)
    expect(meet(aUnderB, bUnderD)).toBe(true)
  })

  it('when an object is related to another while either is deleted, then they conflict; two new objects related to one do not', () => {
    expect(meet(relationLocks(40, 8, new Set([40])), wholeLocks(8, none))).toBe(true)
    expect(meet(relationLocks(8, 9, none), wholeLocks(8, none))).toBe(true)
    expect(meet(relationLocks(40, 8, new Set([40])), relationLocks(41, 8, new Set([41])))).toBe(false)
  })

  it('when an object is new in the transaction, then none of its stripes are taken', () => {
    expect(wholeLocks(40, new Set([40]))).toEqual([])
    expect(wholeLocks(8, none)).toHaveLength(STRIPES)
  })
})

/** A counters collection in memory, counting its writes. */
function counters () {
  const seqs = new Map<string, number>()
  let writes = 0
  const collection = {
    findOneAndUpdate: async (filter: { _id: string }, update: { $inc: { seq: number } }) => {
      writes++
      await new Promise((resolve) => setTimeout(resolve, 5))
      const seq = (seqs.get(filter._id) ?? 0) + update.$inc.seq
      seqs.set(filter._id, seq)
      return { _id: filter._id, seq }
    },
    updateOne: async (filter: { _id: string }, update: { $max: { seq: number } }) => {
      writes++
      seqs.set(filter._id, Math.max(seqs.get(filter._id) ?? 0, update.$max.seq))
    },
  }
  return { collection: collection as unknown as Collection<CounterDoc>, writes: () => writes }
}

describe('ids from per-process blocks', () => {
  it('when a process creates, then its ids follow one another after the publication, one counter write per block', async () => {
    const c = counters()
    const ids = new IdBlocks(c.collection, 10)
    await ids.atLeast('objects', 1)
    const taken = await Promise.all(Array.from({ length: 25 }, () => ids.take('objects')))
    expect(taken).toEqual(Array.from({ length: 25 }, (_, i) => i + 2))
    // the publication's, then three blocks: concurrent takes wait for one refill
    expect(c.writes()).toBe(4)
  })

  it('when two processes take from one counter, then their ids never meet; a run longer than a block gets its own', async () => {
    const c = counters()
    const [one, two] = [new IdBlocks(c.collection, 10), new IdBlocks(c.collection, 10)]
    const taken = await Promise.all([...Array.from({ length: 15 }, () => one.take('objects')), ...Array.from({ length: 15 }, () => two.take('objects'))])
    expect(new Set(taken).size).toBe(30)
    const run = await one.take('geo_tags', 25)
    expect(await one.take('geo_tags')).toBe(run + 25)
  })
})
