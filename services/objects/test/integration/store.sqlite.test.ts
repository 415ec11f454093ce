import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { describeOutboxContract } from './outbox.contract.js'
import { describeObjectsStoreContract } from './store.contract.js'

describeObjectsStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-store-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describeOutboxContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-outbox-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})

describe('sqlite store identity', () => {
  it('when a store file is opened again, then it keeps its id and its change numbering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objects-id-'))
    try {
      const file = join(dir, 'objects.sqlite')
      const first = openSqliteStore(file, { publicationNickname: 'publication' })
      await first.objects.create({ object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'A' }, read_groups: [], write_groups: [], user_id: 1, extras: {} }, 1)
      const id = first.storeId
      await first.close()
      const again = openSqliteStore(file, { publicationNickname: 'publication' })
      expect(again.storeId).toBe(id)
      expect(await again.changes.bounds()).toEqual({ first: 1, last: 1 })
      await again.close()
      const other = openSqliteStore(join(dir, 'other.sqlite'), { publicationNickname: 'publication' })
      expect(other.storeId).not.toBe(id)
      await other.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
