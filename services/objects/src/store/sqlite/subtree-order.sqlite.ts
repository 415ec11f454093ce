import type Database from 'better-sqlite3'
import type { Statements } from './rows.sqlite.js'

/**
 * Descendants in tree order (decisions §3) by a kept key: `closure.priority` is the descendant's lowest
 * priority under any parent inside the ancestor's subtree (NULL on the reflexive row). Every change of
 * an edge restates the pairs it can change (a new edge to a leaf gives its pairs their key as it inserts
 * them, `placeChild`), so a page of descendants reads the index `closure_order` instead of computing and
 * sorting every descendant's position.
 */
// CROSS JOIN keeps this order: the object's few parent edges, then one closure look-up each; the planner
// would otherwise walk every descendant of the ancestor through closure_order
const SUBTREE_PRIORITY = `(SELECT MIN(t.priority) FROM tree t CROSS JOIN closure c2
  ON c2.ancestor_id = closure.ancestor_id AND c2.descendant_id = t.parent_id WHERE t.object_id = closure.descendant_id)`

/**
 * Adds the key to a store from before it (filled once) and its index. Checked under the write lock, so
 * that two processes opening the same old file do not both add it.
 */
export function ensureSubtreeOrder (db: Database.Database): void {
  db.transaction(() => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('closure')").all() as { name: string }[]
    if (!columns.some((c) => c.name === 'priority')) {
      db.exec('ALTER TABLE closure ADD COLUMN priority INTEGER')
      db.exec(`UPDATE closure SET priority = ${SUBTREE_PRIORITY} WHERE ancestor_id <> descendant_id`)
    }
    db.exec('CREATE INDEX IF NOT EXISTS closure_order ON closure(ancestor_id, priority, descendant_id)')
  }).immediate()
}

/**
 * After the edge parent → child was added, removed or given another priority: restates the pairs whose
 * key it can change, those from the parent and its ancestors to the child (`'child'`: a new priority
 * moves only the child) or to the child's whole subtree (`'subtree'`: an edge added or removed changes
 * which parents lie inside the upper subtrees). Call inside the write's transaction, after the closure.
 */
export function restateOrder (st: Statements, parentId: number, childId: number, reach: 'child' | 'subtree'): void {
  const below = reach === 'child' ? 'descendant_id = @c' : 'descendant_id IN (SELECT descendant_id FROM closure WHERE ancestor_id = @c)'
  st.run(`UPDATE closure SET priority = ${SUBTREE_PRIORITY}
    WHERE ancestor_id IN (SELECT ancestor_id FROM closure WHERE descendant_id = @p) AND ${below} AND ancestor_id <> descendant_id`,
  { p: parentId, c: childId })
}
