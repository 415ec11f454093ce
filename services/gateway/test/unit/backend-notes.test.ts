import { describe, expect, it } from 'vitest'
import { BackendNotes } from '../../src/http/backend-notes.js'

describe('BackendNotes', () => {
  it('when no backend answered, then nothing is known and the read is not cached', () => {
    expect(new BackendNotes().dependsOn).toBeNull()
  })

  it('when answers name their dependencies, then they add up; an empty list is no dependency', () => {
    const notes = new BackendNotes()
    notes.observe({ 'x-depends-on': '3,4' })
    notes.observe({ 'x-depends-on': '' })
    notes.observe({ 'x-depends-on': '9' })
    expect(notes.dependsOn).toEqual([3, 4, 9])
  })

  it('when any answer does not say, or says something malformed, then the read is not cached', () => {
    const cases: Record<string, string>[] = [{}, { 'x-depends-on': '3,,4' }, { 'x-depends-on': '3,-1' }, { 'x-depends-on': '1e3' }, { 'x-depends-on': '9999999999999999' }]
    for (const bad of cases) {
      const notes = new BackendNotes()
      notes.observe({ 'x-depends-on': '1' })
      notes.observe(bad)
      notes.observe({ 'x-depends-on': '2' })
      expect(notes.dependsOn, JSON.stringify(bad)).toBeNull()
    }
  })

  it('when writes answer change numbers, then the highest well-formed one is kept', () => {
    const notes = new BackendNotes()
    notes.observe({ 'x-change-seq': '12' })
    notes.observe({ 'x-change-seq': '7' })
    notes.observe({ 'x-change-seq': 'NaN' })
    notes.observe({ 'x-change-seq': '99999999999999999999' })
    expect(notes.changeSeq).toBe(12)
  })
})
