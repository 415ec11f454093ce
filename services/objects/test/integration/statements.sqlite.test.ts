import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { MAX_PREPARED, Statements } from '../../src/store/sqlite/rows.sqlite.js'

describe('prepared statements', () => {
  it('when clients ask for ever new query shapes, then the statements kept stay bounded and each still runs', () => {
    const st = new Statements(new Database(':memory:'))
    for (let i = 0; i < MAX_PREPARED + 50; i++) expect(st.one<{ n: number }>(`SELECT ${i} AS n`)?.n).toBe(i)
    for (let i = 0; i < 50; i++) expect(st.rawOne(`SELECT ${i} AS n, 1`)).toEqual([i, 1])
    expect(st.prepared).toBeLessThanOrEqual(MAX_PREPARED + 50)
    expect(st.prepared).toBeGreaterThanOrEqual(MAX_PREPARED)
    // the first, let go, is prepared again
    expect(st.one<{ n: number }>('SELECT 0 AS n')?.n).toBe(0)
    st.db.close()
  })
})
