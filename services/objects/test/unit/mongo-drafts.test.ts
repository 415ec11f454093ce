import { describe, expect, it } from 'vitest'
import { visibleMatch } from '../../src/store/mongo/rows.mongo.js'

// No MongoDB server exists here: the shape of the draft clause (the drafts contract runs it for real
// when MONGODB_URL is set).

describe('MongoDB visibility with drafts (decisions §16)', () => {
  const base = { statuses: ['on' as const], at: null, groups: ['editor'] }

  it('when no drafts are asked, then only the visible statuses match', () => {
    expect(visibleMatch(base, '')).toEqual({ $and: [{ status: { $in: ['on'] } }, { $or: [{ read_groups: { $size: 0 } }, { read_groups: { $in: ['editor'] } }] }] })
  })

  it('when a writer asks, then drafts whose write groups are empty or shared match too; read groups still apply', () => {
    const match = visibleMatch({ ...base, drafts: { everything: false, groups: ['editor'] } }, 'o.')
    expect(match).toEqual({
      $and: [
        { $or: [{ 'o.status': { $in: ['on'] } }, { 'o.status': 'draft', $or: [{ 'o.write_groups': { $size: 0 } }, { 'o.write_groups': { $in: ['editor'] } }] }] },
        { $or: [{ 'o.read_groups': { $size: 0 } }, { 'o.read_groups': { $in: ['editor'] } }] },
      ],
    })
  })

  it('when an administrator asks, then every draft matches', () => {
    const match = visibleMatch({ statuses: ['on'], at: null, groups: ['administrator'], drafts: { everything: true, groups: ['administrator'] } }, '')
    expect(match).toEqual({ $or: [{ status: { $in: ['on'] } }, { status: 'draft' }] })
  })
})
