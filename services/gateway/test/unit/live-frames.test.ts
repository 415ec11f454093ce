import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { eventFrame, eventFrameBytes, unpublishedFrame, unpublishedFrameBytes } from '../../src/live/live-frames.js'

const event = (): v1.ChangeEvent__Output => ({
  seq: 7, type: 'object.created', object_id: 10, object_type: 'document', at: 0, affects: [10],
  access: { status: 'on', read_groups: [], write_groups: [], parents: [1], ancestors: [1] },
} as unknown as v1.ChangeEvent__Output)

describe('live frames', () => {
  it('every stream that sends an event sends the same bytes, made once: the frame of that event', () => {
    const e = event()
    const bytes = eventFrameBytes('s', e)
    expect(bytes.toString()).toBe(eventFrame('s', e))
    expect(eventFrameBytes('s', e)).toBe(bytes)
    expect(unpublishedFrameBytes('s', e).toString()).toBe(unpublishedFrame('s', e))
    expect(unpublishedFrameBytes('s', e)).toBe(unpublishedFrameBytes('s', e))
  })

  it('an equal event of another object, or the same one of another store, gets its own frame', () => {
    const e = event()
    const bytes = eventFrameBytes('s', e)
    expect(eventFrameBytes('s', event())).not.toBe(bytes)
    expect(eventFrameBytes('other', e).toString()).toBe(eventFrame('other', e))
    expect(eventFrameBytes('other', e).toString()).toMatch(/^id: 7\.other\n/)
  })
})
