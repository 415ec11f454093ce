import { describe, expect, it } from 'vitest'
import type { ObjectRecord } from '../../src/core/types.js'
import { canRead, inWindow, isVisible, nextBoundary, parseStatuses, readAccess, visibilityFor } from '../../src/core/visibility.js'

const record = (over: Partial<ObjectRecord> = {}) => ({ status: 'on', start_date: null, end_date: null, read_groups: [], ...over }) as ObjectRecord
const anon = { user_id: 0, groups: [] }
const member = { user_id: 3, groups: ['members'] }
const other = { user_id: 4, groups: ['others'] }
const administrator = { user_id: 1, groups: ['administrator'] }

describe('readAccess', () => {
  const vis = (caller: { groups: string[] }) => ({ statuses: ['on' as const], at: 1000, groups: caller.groups })
  it.each([
    ['public object, anonymous', record(), anon, 'ok'],
    ['draft', record({ status: 'draft' }), member, 'hidden'],
    ['off', record({ status: 'off' }), member, 'hidden'],
    ['not started', record({ start_date: 1001 }), member, 'hidden'],
    ['ended', record({ end_date: 999 }), member, 'hidden'],
    ['ends now', record({ end_date: 1000 }), anon, 'ok'],
    ['protected, anonymous', record({ read_groups: ['members'] }), anon, 'anonymous'],
    ['protected, outsider', record({ read_groups: ['members'] }), other, 'denied'],
    ['protected, member', record({ read_groups: ['members', 'x'] }), member, 'ok'],
    ['protected draft, anonymous', record({ read_groups: ['members'], status: 'draft' }), anon, 'hidden'],
    ['protected, administrator in none of its groups', record({ read_groups: ['members'] }), administrator, 'ok'],
    ['protected draft, administrator', record({ read_groups: ['members'], status: 'draft' }), administrator, 'hidden'],
  ] as const)('when %s, then %s', (_label, r, caller, expected) => {
    expect(readAccess(r, vis(caller), caller)).toBe(expected)
  })
})

describe('visibility rules', () => {
  it('when the window filter is off, then the instant is null and every date passes', () => {
    const vis = visibilityFor({ visibleStatuses: ['on', 'draft'], windowFilter: false }, member, 5)
    expect(vis).toEqual({ statuses: ['on', 'draft'], at: null, groups: ['members'] })
    expect(inWindow({ start_date: 99, end_date: 1 }, vis.at)).toBe(true)
    expect(isVisible(record({ status: 'draft', start_date: 99 }), vis)).toBe(true)
  })

  it.each([
    [[], ['a'], true],
    [['a'], [], false],
    [['a', 'b'], ['b'], true],
    [['a'], ['c'], false],
    [['a'], ['administrator'], true],
    [['a'], ['editor', 'administrator'], true],
    [['a'], ['Administrator'], false],
  ])('when read groups are %j and the caller has %j, then canRead is %s', (read, groups, expected) => {
    expect(canRead({ read_groups: read }, groups)).toBe(expected)
  })

  it.each([
    ['on', ['on'], []],
    ['on, draft', ['on', 'draft'], []],
    ['on,bogus', ['on'], ['bogus']],
    ['on,on', ['on'], []],
  ])('when VISIBLE_STATUSES is %j, then statuses %j and unknown %j', (text, statuses, unknown) => {
    expect(parseStatuses(text)).toEqual({ statuses, unknown })
  })

  it.each([
    [[], [], null],
    [[50, 20], [], 20],
    [[5], [], null],
    [[], [30], 31],
    [[40], [30], 31],
    [[], [10], 11],
    [[], [9], null],
  ])('when starts are %j and ends %j at 10, then the next boundary is %s', (starts, ends, expected) => {
    expect(nextBoundary(starts, ends, 10)).toBe(expected)
  })
})
