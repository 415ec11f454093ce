import { describe, expect, it } from 'vitest'
import type { ObjectRecord } from '../../src/core/types.js'
import { canRead, inWindow, isVisible, nextBoundary, parseStatuses, readAccess, visibilityFor } from '../../src/core/visibility.js'

const record = (over: Partial<ObjectRecord> = {}) => ({ status: 'on', start_date: null, end_date: null, read_groups: [], write_groups: [], ...over }) as ObjectRecord
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

describe('drafts on status=draft (decisions §16)', () => {
  const settings = { visibleStatuses: ['on' as const], windowFilter: false, writerGroups: ['editor'] }
  const asking = (caller: { user_id: number, groups: string[], may_write?: boolean }) => ({ ...caller, sees_drafts: true })
  const editor = { user_id: 5, groups: ['editor'] }
  const backend = { user_id: 6, groups: ['staff'], may_write: true }
  it.each([
    ['an editor, open draft', editor, record({ status: 'draft', write_groups: [] }), 'ok'],
    ['an editor, draft for its group', editor, record({ status: 'draft', write_groups: ['editor'] }), 'ok'],
    ['an editor, draft for others', editor, record({ status: 'draft', write_groups: ['administrator'] }), 'hidden'],
    ['a may_write token, open draft', backend, record({ status: 'draft', write_groups: [] }), 'ok'],
    ['an administrator, any draft', administrator, record({ status: 'draft', write_groups: ['x'], read_groups: ['y'] }), 'ok'],
    ['a member (no write rights)', member, record({ status: 'draft', write_groups: [] }), 'hidden'],
    ['anonymous', anon, record({ status: 'draft', write_groups: [] }), 'hidden'],
    ['an editor, off object', editor, record({ status: 'off', write_groups: [] }), 'hidden'],
    ['an editor, protected draft', editor, record({ status: 'draft', write_groups: [], read_groups: ['members'] }), 'denied'],
  ] as const)('when %s asks, then %s', (_label, caller, r, expected) => {
    const vis = visibilityFor(settings, asking(caller), 0)
    expect(readAccess({ ...r, write_groups: [...r.write_groups] } as ObjectRecord, vis, caller)).toBe(expected)
  })

  it('when a writer does not ask, then drafts stay hidden', () => {
    const vis = visibilityFor(settings, editor, 0)
    expect(vis.drafts).toBeUndefined()
    expect(isVisible(record({ status: 'draft', write_groups: [] }), vis)).toBe(false)
  })
})
