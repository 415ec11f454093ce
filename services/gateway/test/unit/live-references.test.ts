import { describe, expect, it } from 'vitest'
import type { Access } from '../../src/live/live-access.js'
import { parseLiveParams } from '../../src/live/live-params.js'
import { resolveReferences, type Resolved } from '../../src/live/live-references.js'

const OPEN: Access = { status: 'on', read_groups: [], write_groups: [], parents: [], ancestors: [] }
const MEMBERS: Access = { ...OPEN, read_groups: ['members'] }
const objects: Record<string, Resolved> = { news: { id: 7, access: OPEN }, 7: { id: 7, access: OPEN }, corner: { id: 9, access: MEMBERS }, 9: { id: 9, access: MEMBERS } }

function resolver () {
  const asked: string[][] = []
  const lookup = async (refs: string[]) => { asked.push(refs); return refs.map((r) => objects[r] ?? { id: 0 }) }
  return { asked, lookup }
}
const anonymousReads = (access: Access | null | undefined) => access?.read_groups.length === 0
const memberReads = (access: Access | null | undefined) => access !== null && access !== undefined

describe('resolveReferences (decisions §17 with §15)', () => {
  it('resolves a nickname and an id to the ids they name, in one look-up', async () => {
    const { asked, lookup } = resolver()
    const p = await resolveReferences(parseLiveParams(new URLSearchParams('filter[parent]=news&filter[ancestor]=9')), lookup, memberReads)
    expect([p.parent, p.ancestor]).toEqual([7, 9])
    expect(asked).toEqual([['news', '9']])
  })

  it('an object the caller may not read, and one that does not exist, match nothing alike (id 0)', async () => {
    const { lookup } = resolver()
    const unreadable = await resolveReferences(parseLiveParams(new URLSearchParams('filter[parent]=corner')), lookup, anonymousReads)
    const missing = await resolveReferences(parseLiveParams(new URLSearchParams('filter[parent]=nowhere')), lookup, anonymousReads)
    expect([unreadable.parent, missing.parent]).toEqual([0, 0])
    const member = await resolveReferences(parseLiveParams(new URLSearchParams('filter[parent]=corner')), lookup, memberReads)
    expect(member.parent).toBe(9)
  })

  it('a reference the objects service found readable for the caller is kept whatever the access check says', async () => {
    const p = await resolveReferences(parseLiveParams(new URLSearchParams('filter[parent]=corner')), async () => [{ id: 9, readable: true }], anonymousReads)
    expect(p.parent).toBe(9)
  })

  it('asks nothing when no reference is given', async () => {
    const { asked, lookup } = resolver()
    const p = await resolveReferences(parseLiveParams(new URLSearchParams('events=object.created')), lookup, memberReads)
    expect([p.parent, p.ancestor, asked]).toEqual([null, null, []])
  })
})
