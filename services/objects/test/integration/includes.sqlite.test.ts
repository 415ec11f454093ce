import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { describeIncludesContract } from './includes.contract.js'

describeIncludesContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'objects-includes-'))
  const store = openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication' })
  return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) } }
})
