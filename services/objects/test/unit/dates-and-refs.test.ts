import { describe, expect, it } from 'vitest'
import { parseIsoDate } from '@content/api-schema'
import { objectRef } from '../../src/core/object-ref.js'

describe('parseIsoDate', () => {
  it.each([
    ['2025-01-15T12:00:00Z', Date.UTC(2025, 0, 15, 12)],
    ['2025-01-15T12:00:00+0100', Date.UTC(2025, 0, 15, 11)],
    ['2025-01-15T12:00:00-02:30', Date.UTC(2025, 0, 15, 14, 30)],
    ['2025-01-15T12:00:00.250Z', Date.UTC(2025, 0, 15, 12, 0, 0, 250)],
    ['2025-01-15T12:00Z', Date.UTC(2025, 0, 15, 12)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2025-01-15T12:00:00', null],
    ['2025-02-29T00:00:00Z', null],
    ['2025-13-01T00:00:00Z', null],
    ['2025-01-15T24:00:00Z', null],
    ['2025-01-15T12:00:00+2300', Date.UTC(2025, 0, 14, 13)],
    ['2025-01-15T12:00:00+2400', null],
    ['2025-01-15T12:00:00+2500', null],
    ['2025-01-15T12:00:00-01:60', null],
    ['15/01/2025', null],
    ['', null],
  ])('when the text is %j, then the instant is %s', (text, expected) => {
    expect(parseIsoDate(text)).toBe(expected)
  })
})

describe('objectRef', () => {
  it('when the reference is an id out of range, then 400 INVALID_OBJECT_ID, as the gateway answers it', () => {
    for (const text of ['0', '', '9007199254740992']) expect(() => objectRef(text)).toThrow(expect.objectContaining({ reason: 'INVALID_OBJECT_ID' }))
    expect(objectRef('007')).toEqual({ id: 7 })
    expect(objectRef(' 5')).toEqual({ nickname: ' 5' })
  })

  it('when a nickname holds U+0000, then 404 OBJECT_NOT_FOUND before any store is asked (PostgreSQL could not look it up)', () => {
    for (const text of ['\u0000', 'a\u0000b']) expect(() => objectRef(text)).toThrow(expect.objectContaining({ reason: 'OBJECT_NOT_FOUND' }))
  })
})
