import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import type { Visibility } from '../../src/core/types.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { tempStoreFiles } from '../support/temp-store.js'
import { NOW, VISIBILITIES, apply, describeKeptTreeContract, expectKeptAsRows, unfiltered, type EdgeRow, type Step, type TreeRows } from './kept-tree.contract.js'

const tempFile = tempStoreFiles('objects-counts-')

function rowsOf (file: string): TreeRows {
  const db = new Database(file, { readonly: true })
  try {
    const edges = (db.prepare(`SELECT t.parent_id, t.object_id, t.priority, o.object_type, o.status, o.start_date, o.end_date, o.read_groups
      FROM tree t JOIN objects o ON o.id = t.object_id`).all() as (Omit<EdgeRow, 'read_groups'> & { read_groups: string | null })[])
      .map((r) => ({ ...r, read_groups: r.read_groups === null ? null : JSON.parse(r.read_groups) as string[] }))
    const tagged = db.prepare('SELECT ot.object_id, t.name FROM object_tags ot JOIN tags t ON t.id = ot.tag_id').all() as TreeRows['tagged']
    return { edges, tagged }
  } finally {
    db.close()
  }
}

describeKeptTreeContract('sqlite', async () => {
  const file = tempFile()
  const store = openSqliteStore(file, { publicationNickname: 'pub', now: () => NOW })
  return { store, rows: async () => rowsOf(file), cleanup: () => store.close() }
})

describe('kept child and descendant counts and subtree order (SQLite)', () => {
  it('a store from before the kept counts and order gets them filled when it is opened', async () => {
    const file = tempFile()
    let store = openSqliteStore(file, { publicationNickname: 'pub', now: () => NOW })
    const objects = [PUBLICATION_ID]
    const sections = [PUBLICATION_ID]
    const steps: Step[] = [
      { op: 'create', section: true, status: 'on', under: 0, start: 0, end: 0, groups: 0 },
      { op: 'create', section: false, status: 'on', under: 1, start: 0, end: 0, groups: 0, tags: 1 },
      { op: 'create', section: false, status: 'draft', under: 1, start: 0, end: 0, groups: 0, tags: 3 },
      { op: 'create', section: false, status: 'on', under: 1, start: 2, end: 0, groups: 1, tags: 2 },
      { op: 'create', section: true, status: 'on', under: 0, start: 0, end: 1, groups: 0 },
      { op: 'create', section: false, status: 'on', under: 2, start: 0, end: 0, groups: 0 },
      // the second document also under the second section, first there; the first one moved last
      { op: 'place', target: 2, under: 2 },
      { op: 'priority', target: 1, under: 1, priority: 9 },
    ]
    for (const s of steps) await apply(store, s, objects, sections)
    await store.close()
    const writable = new Database(file)
    writable.exec(`DROP INDEX closure_order; ALTER TABLE closure DROP COLUMN priority;
      DROP TRIGGER child_counts_add; DROP TABLE child_counts; DROP TABLE descendant_restricted; DROP TABLE tag_counts;
      PRAGMA user_version = 0`) // as a release before schema versions left it
    writable.close()

    store = openSqliteStore(file, { publicationNickname: 'pub', now: () => NOW })
    try {
      await expectKeptAsRows(store, rowsOf(file), sections)
      expect((await store.tree.childCounts([PUBLICATION_ID], VISIBILITIES[0] as Visibility)).get(PUBLICATION_ID)).toEqual({ sections: 1, contents: 0 })
      const [section, moved, draft, , , late] = objects.slice(1)
      // lowest priorities in the subtree: section 1, late 1 (under the ended section), draft 2 (under
      // both sections), moved 9; the future and the ended objects are hidden
      expect((await store.tree.descendants(PUBLICATION_ID, 'tree', unfiltered(VISIBILITIES[2] as Visibility, 0, 10))).ids)
        .toEqual([section, late, draft, moved])
    } finally {
      await store.close()
    }
  })

})
