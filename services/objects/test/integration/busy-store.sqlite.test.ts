import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { tempStoreFiles } from '../support/temp-store.js'

const NOW = Date.UTC(2026, 0, 1)
const tempFile = tempStoreFiles('objects-busy-')
const doc = (title: string) => ({
  object_type: 'document' as const, nickname: null, status: 'on' as const, columns: { ...DEFAULT_COLUMNS, title },
  read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
})

// A write that cannot get the write lock within busy_timeout (another connection holds it: a background
// step on an overloaded machine) was a raw SQLITE_BUSY, which the service answered 500.
describe('a write while another connection holds the write lock past busy_timeout', () => {
  it('is refused as a busy store (UNAVAILABLE/SERVICE_UNAVAILABLE, retry_after), writes nothing, and the next write succeeds', { timeout: 30_000 }, async () => {
    const file = tempFile()
    const store = openSqliteStore(file, { publicationNickname: 'publication', now: () => NOW })
    const other = new Database(file)
    try {
      other.exec('BEGIN IMMEDIATE')
      await expect(store.objects.create(doc('blocked'), NOW)).rejects.toMatchObject({
        code: 'UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE', details: { retry_after: 1 },
      })
      other.exec('ROLLBACK')
      await store.objects.create(doc('after'), NOW)
      expect(other.prepare("SELECT count(*) AS n FROM objects WHERE title = 'blocked'").get()).toEqual({ n: 0 })
      expect(other.prepare("SELECT count(*) AS n FROM objects WHERE title = 'after'").get()).toEqual({ n: 1 })
    } finally {
      other.close()
      await store.close()
    }
  })
})
