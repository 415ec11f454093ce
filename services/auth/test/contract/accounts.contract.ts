import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ImportConflictError, type AccountsStore } from '../../src/store/accounts.store.js'
import type { NewUser } from '../../src/store/users.store.js'
import { must } from '../helpers/must.js'

export interface AccountsFixture {
  store: AccountsStore
  dispose: () => Promise<void>
}

const user = (username: string, groups: string[] = [], extra: Partial<NewUser> = {}): NewUser => ({
  username, passwordHash: `hash-of-${username}`, name: `${username} name`, email: `${username}@example.org`,
  groups, cardId: null, ...extra,
})

/** The behaviour every AccountsStore adapter must show. */
export function describeAccountsStoreContract (name: string, factory: () => Promise<AccountsFixture>) {
  describe(`AccountsStore contract: ${name}`, () => {
    let fx: AccountsFixture
    let store: AccountsStore
    beforeEach(async () => { fx = await factory(); store = fx.store })
    afterEach(async () => { await fx.dispose() })

    it('creates groups, refuses a taken name, lists them sorted', async () => {
      expect(await store.groups.create({ name: 'editor', backendAuth: true })).toEqual({ name: 'editor', backendAuth: true })
      expect(await store.groups.create({ name: 'authors', backendAuth: false })).toEqual({ name: 'authors', backendAuth: false })
      expect(await store.groups.create({ name: 'editor', backendAuth: false })).toBe('taken')
      expect(await store.groups.list()).toEqual([{ name: 'authors', backendAuth: false }, { name: 'editor', backendAuth: true }])
    })

    it('creates users with increasing ids and reads them back by id and username', async () => {
      await store.groups.create({ name: 'editor', backendAuth: true })
      await store.groups.create({ name: 'authors', backendAuth: false })
      const before = Date.now()
      const a = await store.users.create(user('alice', ['editor', 'authors'], { cardId: 42 }))
      const b = await store.users.create(user('bob'))
      if (typeof a === 'string' || typeof b === 'string') throw new Error('create failed')
      expect(b.id).toBeGreaterThan(a.id)
      expect(a).toMatchObject({
        username: 'alice', name: 'alice name', email: 'alice@example.org', groups: ['authors', 'editor'],
        cardId: 42, disabled: false, passwordHash: 'hash-of-alice',
      })
      expect(a.created).toBeGreaterThanOrEqual(before - 1000)
      expect(await store.users.get(a.id)).toEqual(a)
      expect(await store.users.findByUsername('alice')).toEqual(a)
      expect(await store.users.findByUsername('nobody')).toBeNull()
      expect(await store.users.get(999_999)).toBeNull()
      expect(await store.users.count()).toBe(2)
    })

    it('refuses a taken username and unknown groups, writing nothing', async () => {
      await store.users.create(user('alice'))
      expect(await store.users.create(user('alice'))).toBe('taken')
      expect(await store.users.create(user('carol', ['ghosts']))).toBe('unknown_groups')
      expect(await store.users.findByUsername('carol')).toBeNull()
      expect(await store.users.count()).toBe(1)
    })

    it('says which usernames exist and disables users', async () => {
      const a = await store.users.create(user('alice'))
      if (typeof a === 'string') throw new Error('create failed')
      expect(await store.users.existing(['alice', 'zed'])).toEqual(['alice'])
      expect((await store.users.get(a.id))?.sessionsSince).toBe(0)
      expect(await store.users.setDisabled(a.id, true, 5_000)).toBe(true)
      expect(await store.users.get(a.id)).toMatchObject({ disabled: true, sessionsSince: 5_000 })
      expect(await store.users.setDisabled(a.id, false, 9_000)).toBe(true)
      expect(await store.users.get(a.id)).toMatchObject({ disabled: false, sessionsSince: 5_000 }) // enabling ends nothing
      expect(await store.users.setDisabled(999_999, true, 1)).toBe(false)
    })

    it('changes a password, ending the logins before it, lists users by id and removes one', async () => {
      const a = await store.users.create(user('alice'))
      const b = await store.users.create(user('bob'))
      if (typeof a === 'string' || typeof b === 'string') throw new Error('create failed')
      expect(await store.users.setPassword(a.id, 'new-hash', 7_000)).toBe(true)
      expect(await store.users.get(a.id)).toMatchObject({ passwordHash: 'new-hash', sessionsSince: 7_000 })
      expect(await store.users.setPassword(999_999, 'x', 1)).toBe(false)
      expect((await store.users.list()).map((u) => u.username)).toEqual(['alice', 'bob'])
      expect(await store.users.remove(a.id)).toBe(true)
      expect(await store.users.remove(a.id)).toBe(false)
      expect(await store.users.get(a.id)).toBeNull()
      expect((await store.users.list()).map((u) => u.username)).toEqual(['bob'])
    })

    it('keeps API keys by id with their hash, lists them newest first, records use, and drops them with their owner', async () => {
      const a = await store.users.create(user('alice'))
      if (typeof a === 'string') throw new Error('create failed')
      const key = (id: string, created: number) => ({ id, name: `key ${id}`, groups: ['editor'], userId: a.id, created, expiresAt: null, secretHash: `hash-${id}` })
      expect(await store.apiKeys.create(key('k1', 1_000))).toEqual({ ...key('k1', 1_000), lastUsed: null })
      await store.apiKeys.create({ ...key('k2', 2_000), expiresAt: 99_000 })
      expect(await store.apiKeys.create({ ...key('k3', 3_000), userId: 999_999 })).toBe('unknown_user')
      expect((await store.apiKeys.list()).map((k) => k.id)).toEqual(['k2', 'k1'])
      await store.apiKeys.touch('k1', 4_000)
      expect(await store.apiKeys.get('k1')).toMatchObject({ lastUsed: 4_000, secretHash: 'hash-k1' })
      expect(await store.apiKeys.get('k2')).toMatchObject({ expiresAt: 99_000, lastUsed: null })
      expect(await store.apiKeys.remove('k1')).toBe(true)
      expect(await store.apiKeys.remove('k1')).toBe(false)
      expect(await store.users.remove(a.id)).toBe(true)
      expect(await store.apiKeys.get('k2')).toBeNull()
    })

    it('imports new and existing groups plus users, returning their ids', async () => {
      await store.groups.create({ name: 'editor', backendAuth: true })
      const ids = await store.importAccounts(
        [{ name: 'editor', backendAuth: false }, { name: 'authors', backendAuth: false }],
        [user('ann', ['editor', 'authors']), user('ben', ['authors'])],
      )
      expect([...ids.keys()].sort()).toEqual(['ann', 'ben'])
      const ann = await store.users.get(must(ids.get('ann')))
      expect(ann?.groups).toEqual(['authors', 'editor'])
      // an existing group keeps its settings
      expect(await store.groups.list()).toEqual([{ name: 'authors', backendAuth: false }, { name: 'editor', backendAuth: true }])
    })

    it('imports all or nothing', async () => {
      await store.users.create(user('taken'))
      await expect(store.importAccounts([{ name: 'new', backendAuth: false }], [user('fresh', ['new']), user('taken')]))
        .rejects.toBeInstanceOf(ImportConflictError)
      expect(await store.users.findByUsername('fresh')).toBeNull()
      expect(await store.groups.list()).toEqual([])
      await expect(store.importAccounts([], [user('orphan', ['nowhere'])])).rejects.toBeInstanceOf(ImportConflictError)
      expect(await store.users.count()).toBe(1)
    })
  })
}
