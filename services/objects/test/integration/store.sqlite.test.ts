import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { describeObjectsStoreContract } from './store.contract.js'

describeObjectsStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-store-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})
