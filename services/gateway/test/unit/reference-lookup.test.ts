import { status } from '@grpc/grpc-js'
import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { referenceLookup, type ReferenceCalls } from '../../src/live/reference-lookup.js'

const failure = (code: number) => Object.assign(new Error(`code ${code}`), { code })
const OPEN: v1.ObjectAccess__Output = { status: 'on', read_groups: [], write_groups: [], parents: [], ancestors: [] }

/** An objects service of the release before: no ResolveAccess; `news` (7) readable, `secret` refused, the rest absent. */
const previousRelease = (asked: string[]): ReferenceCalls => ({
  resolveAccess: async () => { throw failure(status.UNIMPLEMENTED) },
  getObject: async (ref) => {
    asked.push(ref)
    if (ref === 'news' || ref === '7') return { object: { id: 7 } } as v1.GetObjectResponse__Output
    throw failure(ref === 'secret' ? status.PERMISSION_DENIED : status.NOT_FOUND)
  },
})

describe('referenceLookup (decisions §17, a rolling update)', () => {
  it('answers what ResolveAccess answers, in one call', async () => {
    const lookup = referenceLookup({
      resolveAccess: async (refs) => ({ refs: refs.map((r) => (r === 'news' ? { id: 7, access: OPEN } : { id: 0, access: null })) }) as v1.ResolveAccessResponse__Output,
      getObject: async () => { throw new Error('not asked') },
    })
    expect(await lookup(['news', 'nowhere'])).toEqual([{ id: 7, access: OPEN }, { id: 0, access: null }])
  })

  it('when the objects service knows no ResolveAccess, then each reference is read as the caller: one it reads is readable, one it may not read or that is absent names nothing', async () => {
    const asked: string[] = []
    expect(await referenceLookup(previousRelease(asked))(['news', 'secret', 'nowhere'])).toEqual([{ id: 7, readable: true }, { id: 0 }, { id: 0 }])
    expect(asked).toEqual(['news', 'secret', 'nowhere'])
  })

  it('any other failure is the request\'s (not taken for "names nothing")', async () => {
    const unavailable: ReferenceCalls = { resolveAccess: async () => { throw failure(status.UNAVAILABLE) }, getObject: async () => { throw new Error('not asked') } }
    await expect(referenceLookup(unavailable)(['news'])).rejects.toMatchObject({ code: status.UNAVAILABLE })
    const readFails: ReferenceCalls = { ...previousRelease([]), getObject: async () => { throw failure(status.DEADLINE_EXCEEDED) } }
    await expect(referenceLookup(readFails)(['news'])).rejects.toMatchObject({ code: status.DEADLINE_EXCEEDED })
  })
})
