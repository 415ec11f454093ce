import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ImportConflictError, type AccountsStore, type NewUser } from '../../src/store/accounts.store.js'

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
      expect(await store.users.setDisabled(a.id, true)).toBe(true)
      expect((await store.users.get(a.id))?.disabled).toBe(true)
      expect(await store.users.setDisabled(999_999, true)).toBe(false)
    })

    it('imports new and existing groups plus users, returning their ids', async () => {
      await store.groups.create({ name: 'editor', backendAuth: true })
      const ids = await store.importAccounts(
        [{ name: 'editor', backendAuth: false }, { name: 'authors', backendAuth: false }],
        [user('ann', ['editor', 'authors']), user('ben', ['authors'])],
      )
      expect([...ids.keys()].sort()).toEqual(['ann', 'ben'])
      const ann = await store.users.get(ids.get('ann')!)
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
