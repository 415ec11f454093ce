import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bootstrapAccounts } from '../../src/services/bootstrap.js'
import { verifyPassword } from '../../src/security/passwords.js'
import { createSqliteAccountsStore } from '../../src/store/sqlite/accounts.sqlite.js'
import { openAuthDatabase, type SqliteDb } from '../../src/store/sqlite/database.js'
import type { AccountsStore } from '../../src/store/accounts.store.js'
import { captureLogger } from '../helpers/logger.js'
import { tempDir } from '../helpers/temp.js'
import { must } from '../helpers/must.js'

describe('bootstrap of an empty store', () => {
  let dir: ReturnType<typeof tempDir>
  let db: SqliteDb
  let store: AccountsStore
  beforeEach(() => { dir = tempDir(); db = openAuthDatabase(dir.path); store = createSqliteAccountsStore(db) })
  afterEach(() => { db.close(); dir.remove() })

  it('creates administrator and editor (both may write) and the admin with the given password', async () => {
    const { log } = captureLogger()
    const shown: string[] = []
    expect(await bootstrapAccounts(store, { adminUsername: 'root', adminPassword: 'given-secret', log, announce: (l) => shown.push(l) })).toBe(true)
    expect(await store.groups.list()).toEqual([{ name: 'administrator', backendAuth: true }, { name: 'editor', backendAuth: true }])
    const admin = await store.users.findByUsername('root')
    expect(admin?.groups).toEqual(['administrator'])
    expect(admin?.passwordHash.startsWith('$argon2id$')).toBe(true)
    expect(await verifyPassword(must(admin).passwordHash, 'given-secret')).toBe(true)
    expect(shown).toEqual([])
  })

  it('generates a strong password, shows it once, and never logs it', async () => {
    const { log, text } = captureLogger()
    const shown: string[] = []
    await bootstrapAccounts(store, { adminUsername: 'admin', log, announce: (l) => shown.push(l) })
    expect(shown).toHaveLength(1)
    const match = /^admin password \(shown once\): (\S{24,})$/.exec(must(shown[0]))
    expect(match).not.toBeNull()
    const password = must(must(match)[1])
    expect(await verifyPassword(must((await store.users.findByUsername('admin'))).passwordHash, password)).toBe(true)
    expect(text()).toContain('bootstrapped')
    expect(text()).not.toContain(password)
    // a second start finds users and neither creates nor shows anything
    expect(await bootstrapAccounts(store, { adminUsername: 'admin', log, announce: (l) => shown.push(l) })).toBe(false)
    expect(shown).toHaveLength(1)
    expect(await store.users.count()).toBe(1)
  })
})
