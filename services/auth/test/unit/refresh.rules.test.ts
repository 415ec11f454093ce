import { describe, expect, it } from 'vitest'
import { decideRefresh, mayRevoke, type RefreshDecision, type RefreshState } from '../../src/core/refresh.rules.js'

const NOW = 1_000_000
const active: RefreshState = { status: 'active', expiresAt: NOW + 1, rotatedAt: null, familyRevoked: false }
const rotated = (ago: number): RefreshState => ({ status: 'rotated', expiresAt: NOW + 1_000, rotatedAt: NOW - ago, familyRevoked: false })
const on = { rotation: true, graceMs: 10_000 }
const off = { rotation: false, graceMs: 10_000 }

describe('decideRefresh', () => {
  it.each<[string, RefreshState | null, typeof on, RefreshDecision]>([
    ['unknown', null, on, 'invalid'],
    ['active, rotation on', active, on, 'rotate'],
    ['active, rotation off', active, off, 'extend'],
    ['expired exactly now', { ...active, expiresAt: NOW }, on, 'invalid'],
    ['expired long ago', { ...active, expiresAt: NOW - 5 }, off, 'invalid'],
    ['family revoked', { ...active, familyRevoked: true }, on, 'invalid'],
    ['rotated just now', rotated(0), on, 'grace'],
    ['rotated at the grace edge', rotated(10_000), on, 'grace'],
    ['rotated past the grace window', rotated(10_001), on, 'theft'],
    ['rotated, zero grace', rotated(1), { rotation: true, graceMs: 0 }, 'theft'],
    ['rotated with rotation since turned off, in grace', rotated(5), off, 'grace'],
    ['rotated, family revoked', { ...rotated(1), familyRevoked: true }, on, 'invalid'],
    ['rotated and expired', { ...rotated(1), expiresAt: NOW - 1 }, on, 'invalid'],
  ])('%s → %s', (_label, state, policy, expected) => {
    expect(decideRefresh(state, NOW, policy)).toBe(expected)
  })
})

describe('mayRevoke', () => {
  it.each<[string, RefreshState | null, number | null, number, boolean]>([
    ['own live token', active, 7, 7, true],
    ['another user\'s token', active, 7, 8, false],
    ['anonymous caller', active, 0, 0, false],
    ['unknown token', null, null, 7, false],
    ['revoked family', { ...active, familyRevoked: true }, 7, 7, false],
    ['rotated-out token', rotated(1), 7, 7, false],
    ['expired token', { ...active, expiresAt: NOW }, 7, 7, false],
  ])('%s → %s', (_label, state, owner, caller, expected) => {
    expect(mayRevoke(state, owner, caller, NOW)).toBe(expected)
  })
})
