import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { applyPragmas } from '../../src/store/sqlite/schema.sqlite.js'
import { tempStoreFiles } from '../support/temp-store.js'

const tempFile = tempStoreFiles('objects-temp-store-')
/** SQLite's temp_store: 1 FILE, 2 MEMORY. */
const tempStore = (db: Database.Database) => db.pragma('temp_store', { simple: true })

describe('the temporary store of the SQLite connection', () => {
  it('when the store opens, then savepoints and sorts are kept in memory', () => {
    const db = new Database(tempFile())
    applyPragmas(db)
    expect(tempStore(db)).toBe(2)
    db.close()
  })
})
