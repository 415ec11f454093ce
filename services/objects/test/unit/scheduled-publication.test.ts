import { describe, expect, it } from 'vitest'
import { announcedStatuses, windowEvents, type WindowRow } from '../../src/core/scheduled-publication.js'

const row = (id: number, over: Partial<WindowRow> = {}): WindowRow => ({ id, start_date: null, end_date: null, modified: 0, ...over })
const kinds = (rows: WindowRow[], after: number, upTo: number) => windowEvents(rows, after, upTo).map((d) => [d.type, d.object_id])

describe('windowEvents: which boundaries a round over (after, upTo] announces', () => {
  it('when a start_date falls in the range, then the object is published; outside it (or on `after` itself) nothing', () => {
    expect(kinds([row(1, { start_date: 150 })], 100, 200)).toEqual([['object.published', 1]])
    expect(kinds([row(1, { start_date: 200 })], 100, 200)).toEqual([['object.published', 1]])
    expect(kinds([row(1, { start_date: 100 })], 100, 200)).toEqual([])
    expect(kinds([row(1, { start_date: 201 })], 100, 200)).toEqual([])
  })

  it('when end_date + 1 falls in the range, then the object is unpublished: it is visible through end_date', () => {
    expect(kinds([row(2, { end_date: 149 })], 100, 200)).toEqual([['object.unpublished', 2]])
    expect(kinds([row(2, { end_date: 199 })], 100, 200)).toEqual([['object.unpublished', 2]])
    expect(kinds([row(2, { end_date: 200 })], 100, 200)).toEqual([])
    expect(kinds([row(2, { end_date: 99 })], 100, 200)).toEqual([])
  })

  it('when the object was written at or after the boundary, then the write announced it and the round says nothing', () => {
    expect(kinds([row(3, { start_date: 150, modified: 150 })], 100, 200)).toEqual([])
    expect(kinds([row(3, { start_date: 150, modified: 149 })], 100, 200)).toEqual([['object.published', 3]])
    expect(kinds([row(3, { end_date: 149, modified: 150 })], 100, 200)).toEqual([])
  })

  it('when a window ends before it starts, then it never opens: no event at either end', () => {
    expect(kinds([row(4, { start_date: 160, end_date: 140 })], 100, 200)).toEqual([])
    expect(kinds([row(4, { start_date: 150, end_date: 149 })], 100, 200)).toEqual([])
  })

  it('when a whole window passed within one range (a downtime), then it is published and unpublished, in boundary order', () => {
    const rows = [row(6, { start_date: 180 }), row(5, { start_date: 110, end_date: 159 }), row(7, { start_date: 110 })]
    expect(kinds(rows, 100, 200)).toEqual([['object.published', 5], ['object.published', 7], ['object.unpublished', 5], ['object.published', 6]])
  })
})

describe('announcedStatuses', () => {
  it('when windows filter reads, then the visible statuses are announced; when they do not, then none', () => {
    expect(announcedStatuses({ visibleStatuses: ['on', 'draft'], windowFilter: true })).toEqual(['on', 'draft'])
    expect(announcedStatuses({ visibleStatuses: ['on'], windowFilter: false })).toEqual([])
  })
})
