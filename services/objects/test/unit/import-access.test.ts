import { describe, expect, it } from 'vitest'
import { accessSnapshot, recordedAccess, rowAccess, type AccessColumns, type ChangeDraft } from '../../src/core/change-events.js'
import { ImportAccess, insertedAccess } from '../../src/core/import-access.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { NewObject } from '../../src/core/write-steps.js'

const object = ({ start_date = null, ...over }: Partial<NewObject> & { start_date?: number | null }): NewObject => ({
  object_type: 'document', nickname: null, status: 'on', read_groups: [], write_groups: [], user_id: 1, extras: {},
  columns: { ...DEFAULT_COLUMNS, title: 'T', start_date },
  ...over,
})

/** What writing the event alone records: recordedAccess of the object's row, parents and ancestors, and the other end's row. */
const alone = (draft: ChangeDraft, own: AccessColumns, parents: number[], ancestors: number[], other: AccessColumns | null) =>
  JSON.stringify(recordedAccess(draft, accessSnapshot(own, draft.object_id, parents, ancestors), other === null ? null : rowAccess(other)))

describe('ImportAccess', () => {
  it('records what writing each event alone records: the object as inserted, its parents as placed so far, its ancestors sorted, the other end', () => {
    const access = new ImportAccess()
    const doc = object({ read_groups: ['alpha'], start_date: 1_000 })
    const section = object({ object_type: 'section', status: 'draft', write_groups: ['editor'] })
    access.inserted(10, doc)
    access.inserted(11, section)
    const existing: AccessColumns = { status: 'on', read_groups: null, write_groups: null, start_date: null, end_date: 5_000 }

    const created: ChangeDraft = { type: 'object.created', object_id: 10 }
    expect(access.recorded(created, [[10, 1]])).toBe(alone(created, insertedAccess(doc), [], [], null))

    access.placed(10, 11)
    const underSection: ChangeDraft = { type: 'child.added', object_id: 10, parent_id: 11 }
    expect(access.recorded(underSection, [[11, 1], [10, 1], [1, 1]])).toBe(alone(underSection, insertedAccess(doc), [11], [1, 11], insertedAccess(section)))

    const related: ChangeDraft = { type: 'relation.created', object_id: 10, relation: 'seealso', related_id: 3 }
    expect(access.unread(related)).toBe(3)
    access.read(3, existing)
    expect(access.unread(related)).toBe(null)
    const rows = [[11, 1], [10, 1], [1, 1]] as const
    expect(access.recorded(related, rows)).toBe(alone(related, insertedAccess(doc), [11], [1, 11], existing))

    // placed again: the parents grow, whatever rows are given
    access.placed(10, 1)
    const underRoot: ChangeDraft = { type: 'child.added', object_id: 10, parent_id: 1 }
    access.read(1, existing)
    expect(access.recorded(underRoot, rows)).toBe(alone(underRoot, insertedAccess(doc), [11, 1], [1, 11], existing))
  })

  it('an other end whose row is gone records none; an event about an object it did not insert is an error', () => {
    const access = new ImportAccess()
    access.inserted(10, object({}))
    const related: ChangeDraft = { type: 'relation.created', object_id: 10, relation: 'seealso', related_id: 4 }
    access.read(4, undefined)
    expect(JSON.parse(access.recorded(related, [[10, 1]]) ?? '')).not.toHaveProperty('other')
    expect(() => access.recorded({ type: 'object.created', object_id: 99 }, [])).toThrow(/not one the import inserted/)
    expect(() => access.recorded({ type: 'relation.created', object_id: 10, relation: 'seealso', related_id: 5 }, [[10, 1]])).toThrow(/was not read/)
  })

  it('new closure rows for an object make its access anew', () => {
    const access = new ImportAccess()
    access.inserted(10, object({}))
    const created: ChangeDraft = { type: 'object.created', object_id: 10 }
    const first = access.recorded(created, [[10, 1]])
    expect(access.recorded(created, [[10, 1], [2, 1]])).not.toBe(first)
    expect(JSON.parse(access.recorded(created, [[10, 1], [2, 1]]) ?? '').ancestors).toEqual([2])
  })
})
