import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import type { Status } from '../../src/core/types.js'
import { draft, type StoreFactory } from './store.contract.js'

const ON: Status[] = ['on']

/** Scheduled publication every ObjectsStore adapter must keep (decisions §16): SchedulePort.announce. */
export function describeScheduleContract (name: string, factory: StoreFactory): void {
  describe(`schedule contract: ${name}`, () => {
    let store: ObjectsStore
    let cleanup: () => Promise<void>
    beforeEach(async () => { ({ store, cleanup } = await factory()) })
    afterEach(async () => { await cleanup() })

    const since = async (seq: number) => (await store.changes.after(seq, 1_000)).map((e) => [e.type, e.object_id, e.object_type])
    const windowed = (title: string, start: number | null, end: number | null, status: Status = 'on') =>
      ({ ...draft('document', title, { status }), columns: { ...DEFAULT_COLUMNS, title, start_date: start, end_date: end } })

    it('when a store runs its first round, then it only sets the watermark: boundaries before it are never announced', async () => {
      await store.objects.create(windowed('Old', 500, null), 100)
      const before = store.committedSeq()
      expect(await store.schedule.announce(1_000, ON)).toBe(0)
      expect(await store.schedule.announce(2_000, ON)).toBe(0)
      expect(await since(before)).toEqual([])
    })

    it('when windows open and close between rounds, then each boundary is announced once, in order, reaching the object\'s parents', async () => {
      const section = await store.objects.create({ ...draft('section', 'S'), links: { parents: [1], relations: [] } }, 100)
      const opens = await store.objects.create({ ...windowed('Opens', 1_500, null), links: { parents: [section], relations: [] } }, 100)
      const closes = await store.objects.create(windowed('Closes', null, 1_499), 100)
      await store.schedule.announce(1_000, ON)
      const before = store.committedSeq()
      expect(await store.schedule.announce(1_499, ON)).toBe(0)
      expect(await store.schedule.announce(1_500, ON)).toBe(2)
      expect(await store.schedule.announce(1_600, ON)).toBe(0)
      const events = await store.changes.after(before, 100)
      expect(events.map((e) => [e.type, e.object_id, e.object_type])).toEqual([['object.published', opens, 'document'], ['object.unpublished', closes, 'document']])
      expect(events[0]?.affects).toEqual([1, section, opens])
      expect(events[0]?.at).toBeGreaterThan(0)
    })

    it('when a round\'s time is not past the watermark (another process ran it), then it records nothing', async () => {
      await store.objects.create(windowed('Opens', 1_500, null), 100)
      await store.schedule.announce(1_000, ON)
      expect(await store.schedule.announce(2_000, ON)).toBe(1)
      const before = store.committedSeq()
      expect(await store.schedule.announce(2_000, ON)).toBe(0)
      expect(await store.schedule.announce(1_900, ON)).toBe(0)
      expect(await since(before)).toEqual([])
    })

    it('when an object is a draft, in the trash, or written after its boundary, then nothing is announced for it', async () => {
      await store.objects.create(windowed('Draft', 1_500, null, 'draft'), 100)
      const trashed = await store.objects.create(windowed('Trashed', 1_500, null), 100)
      await store.trash.put(trashed, 1, 200)
      const late = await store.objects.create(windowed('Late', null, null), 100)
      await store.schedule.announce(1_000, ON)
      expect(await store.objects.update(late, { columns: { start_date: 1_500 }, user_id: 1, extras: {} }, 1_700)).toBe(true)
      const before = store.committedSeq()
      expect(await store.schedule.announce(2_000, ON)).toBe(0)
      expect(await since(before)).toEqual([])
    })

    it('when no status is announced (windows do not filter), then the watermark still moves: a later round does not announce what passed', async () => {
      await store.objects.create(windowed('Opens', 1_500, null), 100)
      await store.schedule.announce(1_000, ON)
      expect(await store.schedule.announce(2_000, [])).toBe(0)
      const before = store.committedSeq()
      expect(await store.schedule.announce(3_000, ON)).toBe(0)
      expect(await since(before)).toEqual([])
    })
  })
}
