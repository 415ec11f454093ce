import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NewRefreshToken, TokensStore } from '../../src/store/tokens.store.js'

export interface TokensFixture {
  store: TokensStore
  dispose: () => Promise<void>
}

let counter = 0
const HOUR = 3_600_000

/** The behaviour every TokensStore adapter must show. */
export function describeTokensStoreContract (name: string, factory: () => Promise<TokensFixture>) {
  describe(`TokensStore contract: ${name}`, () => {
    let fx: TokensFixture
    let store: TokensStore
    beforeEach(async () => { fx = await factory(); store = fx.store })
    afterEach(async () => { await fx.dispose() })

    const token = (extra: Partial<NewRefreshToken> = {}): NewRefreshToken =>
      ({ hash: `hash-${name}-${++counter}-${Date.now()}`, userId: 7, familyId: `fam-${counter}`, expiresAt: Date.now() + HOUR, ...extra })

    it('finds an issued token as active and forgets unknown ones', async () => {
      const t = token()
      await store.issue(t)
      expect(await store.find(t.hash, Date.now())).toEqual({
        token: { ...t, status: 'active', rotatedAt: null, successor: null }, familyRevoked: false,
      })
      expect(await store.find('no-such-hash', Date.now())).toBeNull()
    })

    it('treats a token past its expiry as gone, and lets the backend drop it', async () => {
      const t = token({ expiresAt: Date.now() + 300 })
      await store.issue(t)
      expect(await store.find(t.hash, t.expiresAt)).toBeNull()
      await new Promise((r) => setTimeout(r, 400))
      await store.issue(token()) // SQLite sweeps expired rows when it issues; Redis expires keys itself
      expect(await store.find(t.hash, 0)).toBeNull()
    })

    it('rotates once: the old token keeps its successor, the new one is active', async () => {
      const old = token()
      const next = token({ familyId: old.familyId })
      const spare = token({ familyId: old.familyId })
      await store.issue(old)
      const at = Date.now()
      expect(await store.rotate(old.hash, next, 'sealed-successor', at)).toBe(true)
      expect(await store.find(old.hash, at)).toMatchObject({ token: { status: 'rotated', rotatedAt: at, successor: 'sealed-successor', expiresAt: old.expiresAt } })
      expect(await store.find(next.hash, at)).toMatchObject({ token: { status: 'active', familyId: old.familyId } })
      expect(await store.rotate(old.hash, spare, 'other', at)).toBe(false)
      expect(await store.find(spare.hash, at)).toBeNull()
      expect(await store.rotate('no-such-hash', spare, 'other', at)).toBe(false)
    })

    it('lets exactly one of two concurrent rotations win', async () => {
      const old = token()
      await store.issue(old)
      const results = await Promise.all([1, 2, 3].map(() => store.rotate(old.hash, token({ familyId: old.familyId }), 's', Date.now())))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('extends an active token only', async () => {
      const t = token()
      await store.issue(t)
      expect(await store.extend(t.hash, t.expiresAt + HOUR)).toBe(true)
      expect((await store.find(t.hash, Date.now()))?.token.expiresAt).toBe(t.expiresAt + HOUR)
      await store.rotate(t.hash, token(), 's', Date.now())
      expect(await store.extend(t.hash, t.expiresAt + 2 * HOUR)).toBe(false)
      expect(await store.extend('no-such-hash', t.expiresAt)).toBe(false)
    })

    it('revokes a whole family once, leaving other families alone', async () => {
      const a1 = token({ familyId: `fam-a${counter}` })
      const a2 = token({ familyId: a1.familyId })
      const b = token({ familyId: `fam-b${counter}` })
      for (const t of [a1, a2, b]) await store.issue(t)
      expect(await store.revokeFamily(a1.familyId, Date.now() + HOUR)).toBe(true)
      expect(await store.revokeFamily(a1.familyId, Date.now() + HOUR)).toBe(false)
      expect((await store.find(a1.hash, Date.now()))?.familyRevoked).toBe(true)
      expect((await store.find(a2.hash, Date.now()))?.familyRevoked).toBe(true)
      expect((await store.find(b.hash, Date.now()))?.familyRevoked).toBe(false)
      // decisions §17: the live streams' session check asks by family alone
      expect(await store.familyRevoked(a1.familyId, Date.now())).toBe(true)
      expect(await store.familyRevoked(b.familyId, Date.now())).toBe(false)
      expect(await store.familyRevoked('fam-never-issued', Date.now())).toBe(false)
    })
  })
}
