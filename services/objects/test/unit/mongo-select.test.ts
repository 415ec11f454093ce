import type { Document } from 'mongodb'
import { describe, expect, it } from 'vitest'
import type { Selection } from '../../src/core/ports.js'
import { selectPipeline } from '../../src/store/mongo/select.mongo.js'

// No MongoDB server exists here: the shapes of the §15 aggregation (the contract suite runs it for real
// when MONGODB_URL is set).

const selection = (over: Partial<Selection>): Selection => ({
  visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' },
  clauses: [], sort: [], after: null, offset: 0, limit: 20, count: true, ...over,
})
const stageOf = (pipeline: Document[], name: string) => pipeline.filter((s) => name in s)

describe('MongoDB lists of decisions §15', () => {
  it('when conditions AND and OR, then one match holds them, references as bounded lookups', () => {
    const { collection, pipeline } = selectPipeline({ kind: 'children', node: 7, scope: 'all' }, selection({
      clauses: [
        { field: 'tags', op: 'in', values: ['a', 'b'], group: null },
        { field: 'parent', op: 'neq', values: [9], group: null },
        { field: 'title', op: 'contains', values: ['x.y'], group: 0 },
        { field: 'custom_properties.color', op: 'null', values: ['true'], group: 1 },
      ],
    }))
    expect(collection).toBe('tree')
    const lookups = stageOf(pipeline, '$lookup').map((s) => s.$lookup as Document)
    expect(lookups.find((l) => l.as === '_r1')).toMatchObject({ from: 'tree', pipeline: [expect.anything(), { $limit: 1 }] })
    const match = stageOf(pipeline, '$match').at(-1)?.$match as Document
    expect(match.$and).toEqual([
      { 'o.tags': { $in: ['a', 'b'] } },
      { _r1: { $eq: [] } },
      { $or: [{ 'o.title': { $regex: 'x\\.y', $options: 'i' } }, { 'o.custom_properties': { $not: { $elemMatch: { name: 'color' } } } }] },
    ])
  })

  it('when sorted and paged after a position, then nulls sort last by a flag and the position is strict', () => {
    const { pipeline } = selectPipeline({ kind: 'descendants', node: 1, order: 'id' }, selection({
      sort: [{ field: 'publication_date', descending: true }], after: { keys: [1000], id: 42 }, count: false,
    }))
    const added = stageOf(pipeline, '$addFields')[0]?.$addFields as Document
    expect(added._k0).toBe('$o.publication_date')
    expect(added._n0).toEqual({ $cond: [{ $eq: [{ $ifNull: ['$o.publication_date', null] }, null] }, 1, 0] })
    const facet = stageOf(pipeline, '$facet')[0]?.$facet as Document
    expect(facet.total).toBeUndefined()
    expect(facet.page[0]).toEqual({ $match: { $or: [
      { $or: [{ _k0: { $lt: 1000 }, _n0: 0 }, { _n0: 1 }] },
      { $and: [{ _n0: 0, _k0: 1000 }, { _id: { $gt: 42 } }] },
    ] } })
    expect(facet.page[1]).toEqual({ $sort: { _n0: 1, _k0: -1, _id: 1 } })
  })
})
