// No MongoDB server exists on the build machines: this checks the shape of lockLinked's write and its
// refusal against a fake collection; the store contract suite exercises it for real with MONGODB_URL.
import { describe, expect, it } from 'vitest'
import { lockLinked, type Tx } from '../../src/store/mongo/schema.mongo.js'

function txMatching (existing: number[]) {
  const calls: unknown[] = []
  const objects = {
    updateMany: async (filter: { _id: { $in: number[] } }, update: unknown, options: unknown) => {
      calls.push({ filter, update, options })
      return { matchedCount: filter._id.$in.filter((id) => existing.includes(id)).length }
    },
  }
  const session = { id: 'session' }
  return { tx: { c: { objects }, session } as unknown as Tx, calls, session }
}

describe('lockLinked', () => {
  it('when every linked object exists, then each is written once inside the transaction', async () => {
    const { tx, calls, session } = txMatching([4, 9])
    await lockLinked(tx, [4, 9, 4])
    expect(calls).toEqual([{ filter: { _id: { $in: [4, 9] } }, update: { $inc: { link_version: 1 } }, options: { session } }])
  })

  it('when a linked object was deleted meanwhile, then the write is refused as invalid', async () => {
    const { tx } = txMatching([4])
    await expect(lockLinked(tx, [4, 9])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'VALIDATION_FAILED' })
  })
})
